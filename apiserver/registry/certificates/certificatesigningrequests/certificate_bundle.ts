/**
 * The check of a CertificateSigningRequest's `status.certificate` (Kubernetes'
 * `validateCertificate`): one or more PEM `CERTIFICATE` blocks without headers, each holding an
 * X.509 certificate; text around the blocks is allowed.
 *
 * @module
 */
import { parseCertificate } from "../../../../shared/pki/parse_certificate.ts";

const BLOCK = /-----BEGIN ([^\n-]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text.replace(/\s/g, "")), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Why `pem` is not an acceptable certificate bundle, or undefined (also for empty data). */
export function certificateBundleProblem(pem: Uint8Array): string | undefined {
  if (pem.length === 0) return undefined;
  const text = new TextDecoder().decode(pem);
  let blocks = 0;
  for (const m of text.matchAll(BLOCK)) {
    const [label, body] = [m[1], m[2]];
    const headers = body.split(/\r?\n/).some((line) => line.includes(":"));
    const der = headers ? undefined : decodeBase64(body);
    if (!headers && !der) continue;
    if (label !== "CERTIFICATE") {
      return `only CERTIFICATE PEM blocks are allowed, found "${label}"`;
    }
    if (headers) return "no PEM block headers are permitted";
    blocks++;
    try {
      parseCertificate(der!);
    } catch {
      return "x509: malformed certificate";
    }
  }
  return blocks === 0 ? "must contain at least one CERTIFICATE PEM block" : undefined;
}
