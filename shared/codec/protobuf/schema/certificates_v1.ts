/**
 * Message descriptors of certificates.k8s.io/v1 (k8s.io/api/certificates/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of certificates.k8s.io/v1 (k8s.io/api/certificates/v1). */
export const certificatesV1Messages: MessageTable = {
  "certificates.v1.CertificateSigningRequest": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "certificates.v1.CertificateSigningRequestSpec"],
    [3, "status", "certificates.v1.CertificateSigningRequestStatus"],
  ],
  "certificates.v1.CertificateSigningRequestCondition": [
    [1, "type", "string", 1],
    [6, "status", "string", 1],
    [2, "reason", "string"],
    [3, "message", "string"],
    [4, "lastUpdateTime", "meta.v1.Time"],
    [5, "lastTransitionTime", "meta.v1.Time"],
  ],
  "certificates.v1.CertificateSigningRequestList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]certificates.v1.CertificateSigningRequest"],
  ],
  "certificates.v1.CertificateSigningRequestSpec": [
    [1, "request", "bytes", 1],
    [7, "signerName", "string", 1],
    [8, "expirationSeconds", "int32", 1],
    [5, "usages", "[]string"],
    [2, "username", "string"],
    [3, "uid", "string"],
    [4, "groups", "[]string"],
    [6, "extra", "map:certificates.v1.ExtraValue"],
  ],
  "certificates.v1.CertificateSigningRequestStatus": [
    [1, "conditions", "[]certificates.v1.CertificateSigningRequestCondition"],
    [2, "certificate", "bytes"],
  ],
  "certificates.v1.ExtraValue": [
    [1, "items", "[]string"],
  ],
};
