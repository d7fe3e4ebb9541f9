import { certificatesV1Messages } from "../../../../shared/codec/protobuf/schema/certificates_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "certificatesV1Messages",
  messages: certificatesV1Messages,
  gv: "certificates.k8s.io/v1",
  // [message, json, number, keepZero], read from certificates/v1 generated.proto and types.go
  // (v0.32).
  fields: [
    ["certificates.v1.CertificateSigningRequestSpec", "request", 1, true],
    ["certificates.v1.CertificateSigningRequestSpec", "signerName", 7, true],
    ["certificates.v1.CertificateSigningRequestSpec", "expirationSeconds", 8, true],
    ["certificates.v1.CertificateSigningRequestSpec", "usages", 5, false],
    ["certificates.v1.CertificateSigningRequestSpec", "username", 2, false],
    ["certificates.v1.CertificateSigningRequestSpec", "extra", 6, false],
    ["certificates.v1.CertificateSigningRequestCondition", "type", 1, true],
    ["certificates.v1.CertificateSigningRequestCondition", "status", 6, true],
    ["certificates.v1.CertificateSigningRequestCondition", "lastTransitionTime", 5, false],
    ["certificates.v1.CertificateSigningRequestStatus", "certificate", 2, false],
  ],
  kinds: [
    "CertificateSigningRequest",
    "CertificateSigningRequestList",
    "Status",
    "DeleteOptions",
  ],
  notRegistered: [["certificates.k8s.io/v1", "ClusterTrustBundle"]],
  fixture: "certificates_v1.json",
});
