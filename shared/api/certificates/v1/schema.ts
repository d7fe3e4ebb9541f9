/**
 * The schema declaration of certificates.k8s.io/v1 (CertificateSigningRequest): required fields,
 * list types and descriptions as Kubernetes 1.32's OpenAPI has them. Field names and types come
 * from the certificates/v1 descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

/** certificates.k8s.io/v1. */
export const certificatesV1Schema: GroupSchema = {
  package: "certificates.v1",
  group: "certificates.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.certificates.v1",
  kinds: ["CertificateSigningRequest", "CertificateSigningRequestList"],
  types: {
    CertificateSigningRequest: {
      description:
        "A request for an X.509 certificate: submitted, approved or denied through the " +
        "approval subresource, and issued by a signer through the status subresource.",
      fields: {
        spec: { description: "The certificate request; immutable after creation." },
        status: { description: "Approval conditions and the issued certificate." },
      },
    },
    CertificateSigningRequestList: { required: ["items"] },
    CertificateSigningRequestSpec: {
      fields: {
        request: {
          description: 'A PKCS#10 request in a "CERTIFICATE REQUEST" PEM block (base64 in JSON).',
        },
        signerName: { description: "The requested signer, a qualified name (example.com/name)." },
        expirationSeconds: { description: "Requested validity in seconds; at least 600." },
        usages: { ...ATOMIC_LIST, description: "Requested key usages of the certificate." },
        username: { description: "The requesting user, set by the server on creation." },
        uid: { description: "The requesting user's uid, set by the server on creation." },
        groups: { ...ATOMIC_LIST, description: "The requesting user's groups, set on creation." },
        extra: { description: "The requesting user's extra attributes, set on creation." },
      },
    },
    CertificateSigningRequestStatus: {
      fields: {
        conditions: {
          listType: "map",
          listMapKeys: ["type"],
          description: 'Known condition types are "Approved", "Denied" and "Failed".',
        },
        certificate: {
          description: "The issued certificate chain, PEM (base64 in JSON); set once.",
        },
      },
    },
    CertificateSigningRequestCondition: {
      required: ["type", "status"],
      fields: {
        type: { description: '"Approved", "Denied", "Failed" or another type.' },
        status: { description: "True, False or Unknown." },
      },
    },
  },
};
