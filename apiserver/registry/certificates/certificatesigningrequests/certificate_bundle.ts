/**
 * The check of a CertificateSigningRequest's `status.certificate` (Kubernetes'
 * `validateCertificate`): one or more PEM `CERTIFICATE` blocks without headers, each holding an
 * X.509 certificate; text around the blocks is allowed.
 *
 * @module
 */
import { parseCertificate } from "../../../../shared/pki/parse_certificate.ts";
import { fromBase64 } from "../../../../shared/codec/protobuf/well_known.ts";

/** The complete PEM blocks of `text`, scanned once from start to end (linear time). */
function* pemBlocks(text: string): Generator<{ label: string; body: string }> {
  let at = 0;
  for (;;) {
    const begin = text.indexOf("-----BEGIN ", at);
    if (begin < 0) return;
    // The label ends at the next "-----" (at the latest where the next BEGIN starts).
    const labelEnd = text.indexOf("-----", begin + 11);
    if (labelEnd < 0) return;
    const after = labelEnd + 5;
    const lineEnd = text[after] === "\n"
      ? after
      : text[after] === "\r" && text[after + 1] === "\n"
      ? after + 1
      : -1;
    if (lineEnd < 0) {
      at = begin + 11;
      continue;
    }
    const label = text.slice(begin + 11, labelEnd);
    const end = text.indexOf(`-----END ${label}-----`, lineEnd);
    if (end < 0) return;
    yield { label, body: text.slice(lineEnd + 1, end) };
    at = end + label.length + 14;
  }
}

/** Why `pem` is not an acceptable certificate bundle, or undefined (also for empty data). */
export function certificateBundleProblem(pem: Uint8Array): string | undefined {
  if (pem.length === 0) return undefined;
  const text = new TextDecoder().decode(pem);
  let blocks = 0;
  for (const { label, body } of pemBlocks(text)) {
    const headers = body.split(/\r?\n/).some((line) => line.includes(":"));
    const der = headers ? undefined : fromBase64(body.replace(/\s/g, ""));
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
