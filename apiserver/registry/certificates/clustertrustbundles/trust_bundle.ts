/**
 * The check of a ClusterTrustBundle's `spec.trustBundle` (Kubernetes' `validateTrustBundle`):
 * at most 1 MiB of PEM `CERTIFICATE` blocks without headers, each a CA certificate with valid
 * basic constraints, none repeated, at least one.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, tooLong } from "../../../../shared/api/validation/field_errors.ts";
import { parseCertificate } from "../../../../shared/pki/parse_certificate.ts";
import { fromBase64 } from "../../../../shared/codec/protobuf/well_known.ts";

/** MaxTrustBundleSize. */
const MAX_TRUST_BUNDLE_SIZE = 1024 * 1024;
const OMITTED = "<value omitted>";
const BLOCK = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** One PEM block: its type, whether it has headers, and its bytes (undefined if not base64). */
function* pemBlocks(text: string) {
  for (const m of text.matchAll(BLOCK)) {
    const lines = m[2].split(/\r?\n/);
    const headers = lines.some((line) => line.includes(":"));
    const body = lines.filter((line) => !line.includes(":")).join("");
    const der = fromBase64(body.replace(/\s/g, ""));
    if (der) yield { type: m[1], headers, der };
  }
}

/** The entry's problem as kube words it, or undefined for a good CA certificate. */
function entryProblem(i: number, type: string, headers: boolean, der: Uint8Array) {
  if (type !== "CERTIFICATE") return `entry ${i} has bad block type: ${type}`;
  if (headers) return `entry ${i} has PEM block headers`;
  let ca: { ca: boolean } | undefined;
  try {
    ca = parseCertificate(der).basicConstraints;
  } catch {
    return `entry ${i} does not parse as X.509`;
  }
  if (!ca?.ca) return `entry ${i} does not have the CA bit set`;
  return undefined;
}

/** The field errors of `trustBundle` at `field`. */
export function validateTrustBundle(field: string, trustBundle: string): FieldError[] {
  const size = new TextEncoder().encode(trustBundle).length;
  if (size > MAX_TRUST_BUNDLE_SIZE) {
    return [
      tooLong(
        field,
        `<value omitted, len ${size}>`,
        `may not be more than ${MAX_TRUST_BUNDLE_SIZE} bytes`,
      ),
    ];
  }
  const errs: FieldError[] = [];
  const seen = new Map<string, number[]>();
  let i = -1;
  for (const { type, headers, der } of pemBlocks(trustBundle)) {
    i++;
    const problem = entryProblem(i, type, headers, der);
    if (problem) {
      errs.push(invalid(field, OMITTED, problem));
      continue;
    }
    const key = Array.from(der, (b) => String.fromCharCode(b)).join("");
    seen.set(key, [...(seen.get(key) ?? []), i]);
  }
  if (errs.length > 0) return errs;
  if (seen.size === 0) {
    errs.push(invalid(field, OMITTED, "at least one trust anchor must be provided"));
  }
  for (const indices of seen.values()) {
    if (indices.length > 1) {
      errs.push(invalid(field, OMITTED, `duplicate trust anchor (indices [${indices.join(" ")}])`));
    }
  }
  return errs;
}
