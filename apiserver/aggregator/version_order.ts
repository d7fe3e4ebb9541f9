/**
 * Kube's order of version strings inside a group (version.CompareKubeAwareVersionStrings):
 * "kube-like" versions (`v<major>`, `v<major>alpha<minor>`, `v<major>beta<minor>`) first, GA
 * before beta before alpha, higher major first, then higher minor; other strings after them,
 * in lexical order.
 *
 * @module
 */

const KUBE_LIKE = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;
const STABILITY: Readonly<Record<string, number>> = { "": 3, beta: 2, alpha: 1 };

/** Negative when `a` comes first. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_LIKE.exec(a), mb = KUBE_LIKE.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const sa = STABILITY[ma[2] ?? ""], sb = STABILITY[mb[2] ?? ""];
  if (sa !== sb) return sb - sa;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
