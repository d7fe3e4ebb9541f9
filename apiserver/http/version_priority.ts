/**
 * The order of an API group's versions in discovery, as Kubernetes' kube-aware version sort
 * (CompareKubeAwareVersionStrings): `v<major>` (GA) before `v<major>beta<minor>` before
 * `v<major>alpha<minor>`, higher numbers first; versions of other shapes last, in lexical
 * order. A custom resource group's preferred version is the first.
 *
 * @module
 */

const KUBE_LIKE = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { "": 3, beta: 2, alpha: 1 };

/** Negative when `a` sorts before `b`. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_LIKE.exec(a);
  const mb = KUBE_LIKE.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const sa = STABILITY[ma[2] ?? ""];
  const sb = STABILITY[mb[2] ?? ""];
  if (sa !== sb) return sb - sa;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
