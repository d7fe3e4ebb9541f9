/**
 * PEM armour: encodes DER bytes as PEM blocks and extracts blocks of a given label.
 *
 * @module
 */
import { fromBase64 } from "../codec/protobuf/well_known.ts";

/** Encodes DER bytes as one PEM block with the given label, e.g. `CERTIFICATE`. */
export function pemEncode(label: string, der: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < der.length; i += 0x8000) {
    binary += String.fromCharCode(...der.subarray(i, i + 0x8000));
  }
  const b64 = btoa(binary);
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** One decoded PEM block. */
export interface PemBlock {
  label: string;
  der: Uint8Array;
}

/**
 * Decodes every PEM block in `text` (text outside blocks is ignored, as OpenSSL does). Throws
 * on a block whose base64 is invalid or whose END line is missing.
 */
export function pemDecodeAll(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)(?:-----END ([A-Z0-9 ]+)-----|$)/g;
  for (const m of text.matchAll(re)) {
    if (m[3] === undefined) throw new Error(`PEM block ${m[1]} has no END line`);
    if (m[3] !== m[1]) throw new Error(`PEM block ${m[1]} ends with ${m[3]}`);
    const der = fromBase64(m[2].replace(/\s+/g, ""));
    if (!der) throw new Error(`PEM block ${m[1]} holds invalid base64`);
    out.push({ label: m[1], der });
  }
  return out;
}

/** The DER of every `CERTIFICATE` block in `text`, in order. */
export function pemCertificates(text: string): Uint8Array[] {
  return pemDecodeAll(text).filter((b) => b.label === "CERTIFICATE").map((b) => b.der);
}
