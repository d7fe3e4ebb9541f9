/** managerOrUserAgent: the manager of a write, from `fieldManager` or the User-Agent. */

/** The longest manager name Kubernetes accepts. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * `fieldManager` when set, else the User-Agent up to its first `/` (non-printable characters
 * dropped, cut at 128 bytes), as kube-apiserver names managers of non-apply writes.
 */
export function managerOrUserAgent(
  fieldManager: string | undefined,
  userAgent?: string | null,
): string {
  if (fieldManager) return fieldManager;
  const ua = userAgent ?? "";
  const slash = ua.indexOf("/");
  const prefix = slash < 0 ? ua : ua.slice(0, slash);
  // Printable ASCII is kept as is, one byte per character (the common case, without the
  // per-character checks below).
  if (PRINTABLE_ASCII.test(prefix)) return prefix.slice(0, FIELD_MANAGER_MAX_LENGTH);
  let out = "";
  let bytes = 0;
  const enc = new TextEncoder();
  for (const ch of prefix) {
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) continue;
    const n = enc.encode(ch).length;
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}
