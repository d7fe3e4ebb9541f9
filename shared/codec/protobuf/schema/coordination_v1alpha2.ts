/**
 * Message descriptors of coordination.k8s.io/v1alpha2 (k8s.io/api/coordination/v1alpha2), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of coordination.k8s.io/v1alpha2 (k8s.io/api/coordination/v1alpha2). */
export const coordinationV1alpha2Messages: MessageTable = {
  "coordination.v1alpha2.LeaseCandidate": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "coordination.v1alpha2.LeaseCandidateSpec"],
  ],
  "coordination.v1alpha2.LeaseCandidateList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]coordination.v1alpha2.LeaseCandidate"],
  ],
  "coordination.v1alpha2.LeaseCandidateSpec": [
    [1, "leaseName", "string", 1],
    [2, "pingTime", "meta.v1.MicroTime"],
    [3, "renewTime", "meta.v1.MicroTime"],
    [4, "binaryVersion", "string", 1],
    [5, "emulationVersion", "string"],
    [6, "strategy", "string"],
  ],
};
