/**
 * DefaultPreemption, basics: when no node fits, each node whose rejection removing pods could
 * resolve is tried with every pod of lower priority removed; where the pod then fits, the
 * victims are reprieved from the highest priority down while it still fits. The node with the
 * lowest highest-victim priority, then the fewest victims, is nominated. The message for the
 * failure is kube's PostFilter message.
 *
 * @module
 */
import type { FilterPlugin, Rejection } from "./filter.ts";
import { prepareFilters, reasonHistogram } from "./find_node.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";
import { addInto } from "./resources.ts";

/** kube's per-node preemption reasons. */
export const NOT_HELPFUL = "Preemption is not helpful for scheduling";
export const NO_VICTIMS = "No preemption victims found for incoming pod";

/** A node where preemption makes room, and the pods to evict there. */
export interface PreemptionCandidate {
  node: NodeInfo;
  victims: PodInfo[];
}

/** The outcome: a candidate, or kube's PostFilter message for why there is none. */
export type PreemptionResult =
  | { candidate: PreemptionCandidate; message?: undefined }
  | { candidate?: undefined; message: string };

function withoutPods(node: NodeInfo, removed: Set<string>): NodeInfo {
  const pods = new Map([...node.pods].filter(([k]) => !removed.has(k)));
  const requested = {};
  let antiAffinityPods = 0;
  for (const p of pods.values()) {
    addInto(requested, p.requests);
    if (p.hasAntiAffinity) antiAffinityPods++;
  }
  return { ...node, pods, requested, antiAffinityPods };
}

function fitsWithout(
  pod: PodInfo,
  node: NodeInfo,
  nodes: readonly NodeInfo[],
  filters: readonly FilterPlugin[],
  removed: Set<string>,
): boolean {
  const simulated = withoutPods(node, removed);
  const view = nodes.map((n) => (n.name === node.name ? simulated : n));
  return prepareFilters(filters, pod, view)(simulated) === undefined;
}

/** The fewest victims on `node` that let `pod` fit, or undefined. */
function victimsOn(
  pod: PodInfo,
  node: NodeInfo,
  nodes: readonly NodeInfo[],
  filters: readonly FilterPlugin[],
): PodInfo[] | undefined {
  const lower = [...node.pods.values()].filter((p) => p.priority < pod.priority);
  if (lower.length === 0) return undefined;
  const removed = new Set(lower.map((p) => p.key));
  if (!fitsWithout(pod, node, nodes, filters, removed)) return undefined;
  lower.sort((a, b) => b.priority - a.priority);
  for (const p of lower) {
    removed.delete(p.key);
    if (!fitsWithout(pod, node, nodes, filters, removed)) removed.add(p.key);
  }
  return lower.filter((p) => removed.has(p.key));
}

/** Whether a lower-priority pod still terminates on the pod's nominated node (kube waits). */
function terminatingVictimOnNominated(pod: PodInfo, nodes: readonly NodeInfo[]): boolean {
  const status = pod.object.status as Record<string, unknown> | undefined;
  const nominated = status?.nominatedNodeName;
  const node = nominated ? nodes.find((n) => n.name === nominated) : undefined;
  if (!node) return false;
  return [...node.pods.values()].some((p) => p.terminating && p.priority < pod.priority);
}

/** Finds where preempting lower-priority pods lets `pod` fit. */
export function preempt(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  rejections: Map<string, Rejection>,
  filters: readonly FilterPlugin[],
): PreemptionResult {
  if (pod.spec.preemptionPolicy === "Never") {
    return { message: "preemption: not eligible due to preemptionPolicy=Never." };
  }
  if (terminatingVictimOnNominated(pod, nodes)) {
    return { message: "preemption: not eligible due to a terminating pod on the nominated node." };
  }
  const reasons: string[] = [];
  let best: PreemptionCandidate | undefined;
  let bestKey: [number, number] = [Infinity, Infinity];
  for (const node of nodes) {
    const r = rejections.get(node.name);
    if (!r || r.unresolvable) {
      reasons.push(NOT_HELPFUL);
      continue;
    }
    const victims = victimsOn(pod, node, nodes, filters);
    if (!victims) {
      reasons.push(NO_VICTIMS);
      continue;
    }
    const key: [number, number] = [Math.max(...victims.map((v) => v.priority)), victims.length];
    if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
      best = { node, victims };
      bestKey = key;
    }
  }
  if (best) return { candidate: best };
  return {
    message: `preemption: 0/${nodes.length} nodes are available: ${
      reasonHistogram(reasons).join(", ")
    }.`,
  };
}
