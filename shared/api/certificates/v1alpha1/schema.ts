/**
 * The schema declaration of certificates.k8s.io/v1alpha1 (ClusterTrustBundle, off by default).
 *
 * @module
 */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** certificates.k8s.io/v1alpha1. */
export const certificatesV1alpha1Schema: GroupSchema = {
  package: "certificates.v1alpha1",
  group: "certificates.k8s.io",
  version: "v1alpha1",
  openApiPrefix: "io.k8s.api.certificates.v1alpha1",
  kinds: ["ClusterTrustBundle", "ClusterTrustBundleList"],
  types: {
    ClusterTrustBundle: {
      description: "A cluster-scoped bundle of X.509 trust anchors, optionally of one signer.",
      documentedRequired: ["spec"],
    },
    ClusterTrustBundleList: { required: ["items"] },
    ClusterTrustBundleSpec: {
      documentedRequired: ["trustBundle"],
      fields: {
        signerName: { description: "The signer the bundle belongs to, if any." },
        trustBundle: { description: "PEM CERTIFICATE blocks of CA certificates." },
      },
    },
  },
};
