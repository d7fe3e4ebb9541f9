/**
 * Message descriptors of certificates.k8s.io/v1alpha1 (k8s.io/api/certificates/v1alpha1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of certificates.k8s.io/v1alpha1 (k8s.io/api/certificates/v1alpha1). */
export const certificatesV1alpha1Messages: MessageTable = {
  "certificates.v1alpha1.ClusterTrustBundle": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "certificates.v1alpha1.ClusterTrustBundleSpec"],
  ],
  "certificates.v1alpha1.ClusterTrustBundleList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]certificates.v1alpha1.ClusterTrustBundle"],
  ],
  "certificates.v1alpha1.ClusterTrustBundleSpec": [
    [1, "signerName", "string"],
    [2, "trustBundle", "string", 1],
  ],
};
