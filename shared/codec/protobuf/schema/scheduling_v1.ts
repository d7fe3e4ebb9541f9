/**
 * Message descriptors of scheduling.k8s.io/v1 (k8s.io/api/scheduling/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of scheduling.k8s.io/v1 (k8s.io/api/scheduling/v1). */
export const schedulingV1Messages: MessageTable = {
  "scheduling.v1.PriorityClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "value", "int32", 1],
    [3, "globalDefault", "bool"],
    [4, "description", "string"],
    [5, "preemptionPolicy", "string", 1],
  ],
  "scheduling.v1.PriorityClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]scheduling.v1.PriorityClass"],
  ],
};
