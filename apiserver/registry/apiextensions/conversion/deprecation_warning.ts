/**
 * The `Warning` a deprecated version of a custom resource answers every request with: the
 * version's `deprecationWarning`, or kube's default wording, which names the newest served
 * version that is not deprecated and newer than this one (in kube's version order).
 *
 * @module
 */
import type { CustomResourceDefinitionSpec } from "../../../../shared/api/apiextensions/v1/types.ts";

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { alpha: 0, beta: 1, "": 2 };

/** `[major, stability, minor]` of a kube-like version (`v1`, `v2beta1`), or undefined. */
function parseKubeVersion(v: string): [number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  return [Number(m[1]), STABILITY[m[2] ?? ""], m[3] === undefined ? 0 : Number(m[3])];
}

/**
 * Compares versions as kube's CompareKubeAwareVersionStrings: GA above beta above alpha, then
 * by major, then minor version; kube-like versions above the rest, which compare in reverse
 * lexical order. Positive when `a` is the higher.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa[1] !== pb[1]) return pa[1] - pb[1];
  if (pa[0] !== pb[0]) return pa[0] - pb[0];
  return pa[2] - pb[2];
}

/**
 * The warning of `version` of the CRD `spec`, or undefined when that version is not
 * deprecated. Default: `<group>/<version> <Kind> is deprecated`, followed by
 * `; use <group>/<newer> <Kind>` when a newer served, non-deprecated version exists.
 */
export function crdDeprecationWarning(
  spec: CustomResourceDefinitionSpec,
  version: string,
): string | undefined {
  const v = spec.versions.find((x) => x.name === version);
  if (!v?.deprecated) return undefined;
  if (v.deprecationWarning !== undefined) return v.deprecationWarning;
  const kind = spec.names.kind;
  const message = `${spec.group}/${version} ${kind} is deprecated`;
  const newer = spec.versions
    .filter((x) => x.served && !x.deprecated && compareKubeAwareVersions(version, x.name) < 0)
    .map((x) => x.name)
    .sort((a, b) => compareKubeAwareVersions(b, a));
  return newer.length === 0 ? message : `${message}; use ${spec.group}/${newer[0]} ${kind}`;
}
