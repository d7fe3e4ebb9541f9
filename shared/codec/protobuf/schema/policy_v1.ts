/**
 * Message descriptors of policy/v1 (k8s.io/api/policy/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of policy/v1 (k8s.io/api/policy/v1). */
export const policyV1Messages: MessageTable = {
  "policy.v1.Eviction": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "deleteOptions", "meta.v1.DeleteOptions"],
  ],
  "policy.v1.PodDisruptionBudget": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "policy.v1.PodDisruptionBudgetSpec"],
    [3, "status", "policy.v1.PodDisruptionBudgetStatus"],
  ],
  "policy.v1.PodDisruptionBudgetList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]policy.v1.PodDisruptionBudget"],
  ],
  "policy.v1.PodDisruptionBudgetSpec": [
    [1, "minAvailable", "intstr.IntOrString"],
    [2, "selector", "meta.v1.LabelSelector"],
    [3, "maxUnavailable", "intstr.IntOrString"],
    [4, "unhealthyPodEvictionPolicy", "string", 1],
  ],
  "policy.v1.PodDisruptionBudgetStatus": [
    [1, "observedGeneration", "int64"],
    [2, "disruptedPods", "map:meta.v1.Time"],
    [3, "disruptionsAllowed", "int32", 1],
    [4, "currentHealthy", "int32", 1],
    [5, "desiredHealthy", "int32", 1],
    [6, "expectedPods", "int32", 1],
    [7, "conditions", "[]meta.v1.Condition"],
  ],
};
