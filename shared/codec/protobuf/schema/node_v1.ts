/**
 * Message descriptors of node.k8s.io/v1 (k8s.io/api/node/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of node.k8s.io/v1 (k8s.io/api/node/v1). */
export const nodeV1Messages: MessageTable = {
  "node.v1.Overhead": [
    [1, "podFixed", "map:resource.Quantity"],
  ],
  "node.v1.RuntimeClass": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "handler", "string", 1],
    [3, "overhead", "node.v1.Overhead"],
    [4, "scheduling", "node.v1.Scheduling"],
  ],
  "node.v1.RuntimeClassList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]node.v1.RuntimeClass"],
  ],
  "node.v1.Scheduling": [
    [1, "nodeSelector", "map:string"],
    [2, "tolerations", "[]core.v1.Toleration"],
  ],
};
