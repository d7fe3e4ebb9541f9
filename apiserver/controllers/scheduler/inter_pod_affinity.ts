/**
 * InterPodAffinity: the pod's required pod affinity and anti-affinity terms, and the required
 * anti-affinity of the pods already bound, per topology key (kube's three checks, in its order
 * and with its reasons). Counts are made once per pod over every node.
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../shared/selectors/label_selector.ts";
import { type FilterPlugin, unresolvable, unschedulable } from "./filter.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";

type Obj = Record<string, unknown>;

/** kube's reasons. */
export const REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const REASON_EXISTING_ANTI_AFFINITY =
  "node(s) didn't satisfy existing pods anti-affinity rules";

/** A required pod affinity term, read. */
interface Term {
  topologyKey: string;
  /** Whether a pod matches the term's namespaces and label selector. */
  matches(pod: PodInfo): boolean;
}

const list = (v: unknown): Obj[] => Array.isArray(v) ? v.filter(isObject) : [];

function termOf(owner: PodInfo, t: Obj): Term {
  let selector = labelSelectorFromObject(undefined);
  try {
    selector = labelSelectorFromObject(t.labelSelector as LabelSelectorObject | undefined);
  } catch { /* an invalid selector matches nothing */ }
  const namespaces = Array.isArray(t.namespaces) ? t.namespaces.map(String) : [];
  const allNamespaces = isObject(t.namespaceSelector) &&
    Object.keys(t.namespaceSelector).length === 0;
  if (namespaces.length === 0 && !isObject(t.namespaceSelector)) {
    namespaces.push(owner.namespace);
  }
  return {
    topologyKey: String(t.topologyKey ?? ""),
    matches: (pod) =>
      (allNamespaces || namespaces.includes(pod.namespace)) && selector.matches(pod.labels),
  };
}

/** The required terms of `kind` (`podAffinity` or `podAntiAffinity`) of a pod. */
export function requiredTerms(pod: PodInfo, kind: "podAffinity" | "podAntiAffinity"): Term[] {
  const affinity = isObject(pod.spec.affinity) ? pod.spec.affinity : {};
  const a = isObject(affinity[kind]) ? affinity[kind] : {};
  return list(a.requiredDuringSchedulingIgnoredDuringExecution).map((t) => termOf(pod, t));
}

/** Counts, per `key=value` topology pair, the pods matching each term. */
function countTermMatches(terms: Term[], nodes: readonly NodeInfo[]): Map<string, number>[] {
  const counts = terms.map(() => new Map<string, number>());
  for (const node of nodes) {
    terms.forEach((term, i) => {
      const value = node.labels[term.topologyKey];
      if (value === undefined) return;
      let n = 0;
      for (const p of node.pods.values()) if (term.matches(p)) n++;
      const pair = `${term.topologyKey}=${value}`;
      if (n > 0) counts[i].set(pair, (counts[i].get(pair) ?? 0) + n);
    });
  }
  return counts;
}

/** The topology pairs where a bound pod's required anti-affinity matches `pod`. */
function existingAntiAffinityPairs(pod: PodInfo, nodes: readonly NodeInfo[]): Set<string> {
  const pairs = new Set<string>();
  for (const node of nodes) {
    if (node.antiAffinityPods === 0) continue;
    for (const p of node.pods.values()) {
      if (!p.hasAntiAffinity) continue;
      for (const term of requiredTerms(p, "podAntiAffinity")) {
        const value = node.labels[term.topologyKey];
        if (value !== undefined && term.matches(pod)) pairs.add(`${term.topologyKey}=${value}`);
      }
    }
  }
  return pairs;
}

const pairOf = (node: NodeInfo, key: string) =>
  node.labels[key] === undefined ? undefined : `${key}=${node.labels[key]}`;

/** InterPodAffinity's filter. */
export const interPodAffinity: FilterPlugin = {
  name: "InterPodAffinity",
  prepare(pod, nodes) {
    const affinity = requiredTerms(pod, "podAffinity");
    const anti = requiredTerms(pod, "podAntiAffinity");
    const affinityCounts = countTermMatches(affinity, nodes);
    const antiCounts = countTermMatches(anti, nodes);
    const existing = existingAntiAffinityPairs(pod, nodes);
    // The first pod of a group that selects itself may go anywhere its topology keys exist.
    const noneAnywhere = affinityCounts.every((c) => c.size === 0);
    const selfMatch = affinity.every((t) => t.matches(pod));
    return (node) => {
      const affinityOk = affinity.every((t, i) => {
        const pair = pairOf(node, t.topologyKey);
        if (pair === undefined) return false;
        return (affinityCounts[i].get(pair) ?? 0) > 0 || (noneAnywhere && selfMatch);
      });
      if (!affinityOk) return unresolvable(REASON_AFFINITY);
      const antiOk = anti.every((t, i) => {
        const pair = pairOf(node, t.topologyKey);
        return pair === undefined || (antiCounts[i].get(pair) ?? 0) === 0;
      });
      if (!antiOk) return unschedulable(REASON_ANTI_AFFINITY);
      for (const key of Object.keys(node.labels)) {
        if (existing.has(`${key}=${node.labels[key]}`)) {
          return unschedulable(REASON_EXISTING_ANTI_AFFINITY);
        }
      }
      return undefined;
    };
  },
};
