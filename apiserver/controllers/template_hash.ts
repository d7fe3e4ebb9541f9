/**
 * The hash kube's workload controllers name things by (controller.ComputeHash): FNV-1a (32 bit)
 * of the object, with the collision count appended when there is one, written in decimal and
 * mapped through kube's safe alphabet (`bcdfghjklmnpqrstvwxz2456789`). The Deployment's
 * `pod-template-hash` label and ReplicaSet name suffix come from it, and so can a
 * ControllerRevision's name. The object is hashed in a canonical JSON form (keys sorted), so
 * equal objects hash alike; the values differ from kube's, which hashes Go's printing of it.
 *
 * @module
 */

const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** JSON with object keys sorted, so that equal values print alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** FNV-1a, 32 bit, of the UTF-8 bytes of `text`. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** kube's rand.SafeEncodeString: each character mapped into the safe alphabet. */
export function safeEncode(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    out += SAFE_ALPHABET[text.charCodeAt(i) % SAFE_ALPHABET.length];
  }
  return out;
}

/** The hash of `value` (with `collisionCount` when set), safe-encoded. */
export function computeHash(value: unknown, collisionCount?: number): string {
  let text = canonicalJson(value);
  if (collisionCount !== undefined && collisionCount !== null) text += `#${collisionCount}`;
  return safeEncode(String(fnv32a(text)));
}
