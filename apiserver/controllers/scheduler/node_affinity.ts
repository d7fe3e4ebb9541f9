/**
 * NodeAffinity: `spec.nodeSelector` and the required node affinity filter nodes (kube's
 * `RequiredNodeAffinity`); the preferred terms' weights score them.
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";
import { type FilterPlugin, unresolvable } from "./filter.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";

type Obj = Record<string, unknown>;

/** kube's reason. */
export const REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

const list = (v: unknown): Obj[] => Array.isArray(v) ? v.filter(isObject) : [];
const strings = (v: unknown): string[] => Array.isArray(v) ? v.map(String) : [];

/** Whether a NodeSelectorRequirement holds for `value` (undefined: the label is absent). */
function requirementHolds(req: Obj, value: string | undefined): boolean {
  const values = strings(req.values);
  switch (req.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || values.length !== 1) return false;
      const a = Number.parseInt(value, 10), b = Number.parseInt(values[0], 10);
      if (!Number.isInteger(a) || !Number.isInteger(b)) return false;
      return req.operator === "Gt" ? a > b : a < b;
    }
  }
  return false;
}

/** Whether a NodeSelectorTerm matches the node (an empty term matches nothing). */
export function termMatches(term: Obj, node: NodeInfo): boolean {
  const exprs = list(term.matchExpressions), fields = list(term.matchFields);
  if (exprs.length === 0 && fields.length === 0) return false;
  for (const e of exprs) {
    if (!requirementHolds(e, node.labels[String(e.key)])) return false;
  }
  for (const f of fields) {
    const value = f.key === "metadata.name" ? node.name : undefined;
    if (!requirementHolds(f, value)) return false;
  }
  return true;
}

function nodeAffinityOf(pod: PodInfo): Obj {
  const affinity = isObject(pod.spec.affinity) ? pod.spec.affinity : {};
  return isObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
}

/** Whether the node satisfies the pod's nodeSelector and required node affinity. */
export function requiredNodeAffinityMatches(pod: PodInfo, node: NodeInfo): boolean {
  const selector = isObject(pod.spec.nodeSelector) ? pod.spec.nodeSelector : {};
  for (const [k, v] of Object.entries(selector)) {
    if (node.labels[k] !== String(v)) return false;
  }
  const required = nodeAffinityOf(pod).requiredDuringSchedulingIgnoredDuringExecution;
  if (!isObject(required)) return true;
  return list(required.nodeSelectorTerms).some((t) => termMatches(t, node));
}

/** NodeAffinity's filter. */
export const nodeAffinity: FilterPlugin = {
  name: "NodeAffinity",
  prepare(pod) {
    return (node) =>
      requiredNodeAffinityMatches(pod, node) ? undefined : unresolvable(REASON_NODE_AFFINITY);
  },
};

/** The sum of the weights of the pod's preferred node affinity terms the node matches. */
export function preferredNodeAffinityScore(pod: PodInfo, node: NodeInfo): number {
  let score = 0;
  for (const p of list(nodeAffinityOf(pod).preferredDuringSchedulingIgnoredDuringExecution)) {
    const weight = Number(p.weight ?? 0);
    if (weight !== 0 && isObject(p.preference) && termMatches(p.preference, node)) {
      score += weight;
    }
  }
  return score;
}
