/**
 * One scheduling attempt's algorithm: the filter plugins in kube's order (the first that
 * rejects a node decides its reasons), scoring of the nodes that fit, and kube's FitError
 * message for a pod no node takes.
 *
 * @module
 */
import type { FilterPlugin, NodeCheck, Rejection } from "./filter.ts";
import { interPodAffinity } from "./inter_pod_affinity.ts";
import { nodeAffinity } from "./node_affinity.ts";
import { nodeName, nodePorts, nodeUnschedulable, taintToleration } from "./node_filters.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";
import { nodeResourcesFit } from "./resources_fit.ts";
import { pickHighest, scoreNodes } from "./scoring.ts";
import { podTopologySpread } from "./topology_spread.ts";

/** kube's message when the cluster has no node. */
export const NO_NODES_MESSAGE = "no nodes available to schedule pods";

/** The filter plugins of kube's default profile that this scheduler runs, in kube's order. */
export function defaultFilters(): FilterPlugin[] {
  return [
    nodeUnschedulable,
    nodeName,
    taintToleration,
    nodeAffinity,
    nodePorts,
    nodeResourcesFit,
    podTopologySpread,
    interPodAffinity,
  ];
}

/** The filters prepared for one pod over `nodes`. */
export function prepareFilters(
  filters: readonly FilterPlugin[],
  pod: PodInfo,
  nodes: readonly NodeInfo[],
): NodeCheck {
  const checks = filters.map((f) => f.prepare(pod, nodes));
  return (node) => {
    for (const check of checks) {
      const r = check(node);
      if (r) return r;
    }
    return undefined;
  };
}

/** The outcome of filtering and scoring: the chosen node, or every node's rejection. */
export type FindResult =
  | { node: NodeInfo }
  | { node?: undefined; rejections: Map<string, Rejection> };

/** Filters the nodes for `pod` and picks the highest scoring one that fits. */
export function findNode(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  filters: readonly FilterPlugin[],
  random: () => number = Math.random,
): FindResult {
  const check = prepareFilters(filters, pod, nodes);
  const feasible: NodeInfo[] = [];
  const rejections = new Map<string, Rejection>();
  for (const node of nodes) {
    const r = check(node);
    if (r) rejections.set(node.name, r);
    else feasible.push(node);
  }
  if (feasible.length === 0) return { rejections };
  if (feasible.length === 1) return { node: feasible[0] };
  const scores = scoreNodes(pod, feasible, nodes);
  return { node: feasible[pickHighest(scores, random)] };
}

/** `count reason` for each reason, sorted as kube's sortReasonsHistogram. */
export function reasonHistogram(reasons: Iterable<string>): string[] {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort();
}

/**
 * kube's FitError message: `0/N nodes are available: <histogram>.` and, when preemption was
 * tried, ` preemption: <its message>`.
 */
export function fitErrorMessage(
  numNodes: number,
  rejections: Map<string, Rejection>,
  postFilterMessage?: string,
): string {
  if (numNodes === 0) return NO_NODES_MESSAGE;
  let msg = `0/${numNodes} nodes are available:`;
  const hist = reasonHistogram([...rejections.values()].flatMap((r) => r.reasons));
  if (hist.length > 0) msg += ` ${hist.join(", ")}.`;
  if (postFilterMessage) msg += ` ${postFilterMessage}`;
  return msg;
}
