/**
 * kubeadm's CA pin: `sha256:<hex>` of a certificate's SubjectPublicKeyInfo.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { parseCertificate } from "../pki/parse_certificate.ts";

/** `sha256:<hex>` of the public key of a DER certificate. */
export function caCertHash(certDer: Uint8Array): string {
  const spki = parseCertificate(certDer).spkiDer;
  return `sha256:${createHash("sha256").update(spki).digest("hex")}`;
}
