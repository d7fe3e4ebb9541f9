/**
 * Message descriptors of coordination.k8s.io/v1 (k8s.io/api/coordination/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of coordination.k8s.io/v1 (k8s.io/api/coordination/v1). */
export const coordinationV1Messages: MessageTable = {
  "coordination.v1.Lease": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "coordination.v1.LeaseSpec"],
  ],
  "coordination.v1.LeaseList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]coordination.v1.Lease"],
  ],
  "coordination.v1.LeaseSpec": [
    [1, "holderIdentity", "string", 1],
    [2, "leaseDurationSeconds", "int32", 1],
    [3, "acquireTime", "meta.v1.MicroTime"],
    [4, "renewTime", "meta.v1.MicroTime"],
    [5, "leaseTransitions", "int32", 1],
    [6, "strategy", "string", 1],
    [7, "preferredHolder", "string", 1],
  ],
};
