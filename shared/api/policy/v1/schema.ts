/**
 * The schema declaration of policy/v1 (PodDisruptionBudget, and Eviction, the body of the
 * `pods/eviction` subresource): required fields, enums and merge markers as Kubernetes 1.32's
 * OpenAPI has them. Field names and types come from the policy/v1 descriptors.
 *
 * @module
 */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** policy/v1. */
export const policyV1Schema: GroupSchema = {
  package: "policy.v1",
  group: "policy",
  version: "v1",
  openApiPrefix: "io.k8s.api.policy.v1",
  kinds: ["PodDisruptionBudget", "PodDisruptionBudgetList", "Eviction"],
  types: {
    PodDisruptionBudget: {
      description:
        "PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods",
    },
    PodDisruptionBudgetList: { required: ["items"] },
    PodDisruptionBudgetSpec: {
      fields: {
        minAvailable: {
          description:
            'An eviction is allowed if at least "minAvailable" pods selected by "selector" will still be available after the eviction.',
        },
        maxUnavailable: {
          description:
            'An eviction is allowed if at most "maxUnavailable" pods selected by "selector" are unavailable after the eviction.',
        },
        selector: {
          description: "Label query over pods whose evictions are managed by the budget.",
        },
        unhealthyPodEvictionPolicy: {
          enum: ["AlwaysAllow", "IfHealthyBudget"],
          description:
            "When a running but not ready pod may be evicted: IfHealthyBudget (the default) only while the budget has its desired healthy pods, AlwaysAllow always.",
        },
      },
    },
    PodDisruptionBudgetStatus: {
      required: ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"],
      fields: {
        observedGeneration: {
          description: "The generation of the spec this status was computed for.",
        },
        disruptedPods: {
          description:
            "Pods whose eviction was accepted but not yet seen deleted, with the time of the eviction.",
        },
        disruptionsAllowed: { description: "How many pod disruptions are allowed now." },
        currentHealthy: { description: "How many selected pods are healthy now." },
        desiredHealthy: { description: "How many selected pods must stay healthy." },
        expectedPods: {
          description: "How many pods the budget counts (from their controllers' scale).",
        },
        conditions: {
          listType: "map",
          listMapKeys: ["type"],
          patchStrategy: "merge",
          patchMergeKey: "type",
        },
      },
    },
    Eviction: {
      description:
        "Eviction evicts a pod from its node subject to certain policies and safety constraints.",
    },
  },
};
