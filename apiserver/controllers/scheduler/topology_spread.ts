/**
 * PodTopologySpread: the pod's `DoNotSchedule` topology spread constraints. Matching pods are
 * counted per domain over the nodes that have every constraint's topology key and match the
 * pod's node selector and required affinity (kube's default `nodeAffinityPolicy: Honor`); a
 * node fits when its domain's count plus the pod itself stays within `maxSkew` of the
 * smallest domain (0 while fewer domains than `minDomains` exist).
 *
 * @module
 */
import { isObject } from "../../../shared/json/is_object.ts";
import {
  type LabelSelector,
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../shared/selectors/label_selector.ts";
import { type FilterPlugin, unresolvable, unschedulable } from "./filter.ts";
import { requiredNodeAffinityMatches } from "./node_affinity.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";

/** kube's reasons. */
export const REASON_SPREAD = "node(s) didn't match pod topology spread constraints";
export const REASON_SPREAD_LABEL =
  "node(s) didn't match pod topology spread constraints (missing required label)";

/** A constraint, read. */
export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  minDomains: number;
  selector: LabelSelector;
}

/** The pod's constraints with `whenUnsatisfiable` = `action`. */
export function spreadConstraints(pod: PodInfo, action: string): SpreadConstraint[] {
  const raw = Array.isArray(pod.spec.topologySpreadConstraints)
    ? pod.spec.topologySpreadConstraints.filter(isObject)
    : [];
  return raw.filter((c) => (c.whenUnsatisfiable ?? "DoNotSchedule") === action).map((c) => {
    let selector = labelSelectorFromObject(undefined);
    try {
      selector = labelSelectorFromObject(c.labelSelector as LabelSelectorObject | undefined);
    } catch { /* matches nothing */ }
    return {
      maxSkew: Number(c.maxSkew ?? 1),
      topologyKey: String(c.topologyKey ?? ""),
      minDomains: Number(c.minDomains ?? 1),
      selector,
    };
  });
}

/** Counts the pods in the pod's namespace matching each constraint, per domain. */
export function countPerDomain(
  pod: PodInfo,
  constraints: SpreadConstraint[],
  nodes: readonly NodeInfo[],
): Map<string, number>[] {
  const counts = constraints.map(() => new Map<string, number>());
  for (const node of nodes) {
    if (!constraints.every((c) => node.labels[c.topologyKey] !== undefined)) continue;
    if (!requiredNodeAffinityMatches(pod, node)) continue;
    constraints.forEach((c, i) => {
      let n = 0;
      for (const p of node.pods.values()) {
        if (p.namespace === pod.namespace && !p.terminating && c.selector.matches(p.labels)) n++;
      }
      const domain = node.labels[c.topologyKey];
      counts[i].set(domain, (counts[i].get(domain) ?? 0) + n);
    });
  }
  return counts;
}

/** PodTopologySpread's filter. */
export const podTopologySpread: FilterPlugin = {
  name: "PodTopologySpread",
  prepare(pod, nodes) {
    const constraints = spreadConstraints(pod, "DoNotSchedule");
    if (constraints.length === 0) return () => undefined;
    const counts = countPerDomain(pod, constraints, nodes);
    const minimums = counts.map((m, i) =>
      m.size < constraints[i].minDomains ? 0 : Math.min(...m.values())
    );
    return (node) => {
      for (const [i, c] of constraints.entries()) {
        const domain = node.labels[c.topologyKey];
        if (domain === undefined) return unresolvable(REASON_SPREAD_LABEL);
        const self = c.selector.matches(pod.labels) ? 1 : 0;
        const skew = (counts[i].get(domain) ?? 0) + self - minimums[i];
        if (skew > c.maxSkew) return unschedulable(REASON_SPREAD);
      }
      return undefined;
    };
  },
};
