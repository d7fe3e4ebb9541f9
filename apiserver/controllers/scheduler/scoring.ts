/**
 * Scoring of the nodes that fit, kube-like with kube's default weights: NodeResourcesFit's
 * LeastAllocated over cpu and memory (weight 1, requests of 0 counted as kube's defaults of
 * 100m and 200Mi), NodeAffinity's preferred terms (weight 2), TaintToleration's untolerated
 * PreferNoSchedule taints (weight 3), and spreading (weight 2): fewer pods of the same
 * controller, and of the pod's `ScheduleAnyway` constraints' domains, score higher. Each
 * plugin's scores are normalized to 0..100 over the nodes, as kube's NormalizeScore.
 *
 * @module
 */

import { preferredNodeAffinityScore } from "./node_affinity.ts";
import { tolerates, tolerationsOf } from "./node_filters.ts";
import type { NodeInfo, PodInfo } from "./pod_info.ts";
import { countPerDomain, spreadConstraints } from "./topology_spread.ts";

const DEFAULT_CPU = 100;
const DEFAULT_MEMORY = 200 * 1024 * 1024;

/** LeastAllocated: the mean share of cpu and memory left free after placing the pod. */
export function leastAllocatedScore(pod: PodInfo, node: NodeInfo): number {
  const want = {
    cpu: pod.requests.cpu || DEFAULT_CPU,
    memory: pod.requests.memory || DEFAULT_MEMORY,
  };
  let sum = 0;
  for (const name of ["cpu", "memory"] as const) {
    const alloc = node.allocatable[name] ?? 0;
    const used = (node.requested[name] ?? 0) + want[name];
    sum += alloc <= 0 || used > alloc ? 0 : ((alloc - used) * 100) / alloc;
  }
  return Math.floor(sum / 2);
}

function controllerUid(pod: PodInfo): string | undefined {
  const refs = pod.object.metadata.ownerReferences ?? [];
  return refs.find((r) => r.controller === true)?.uid;
}

/** Scales raw scores to 0..100 (reversed: the lowest raw score gets 100). */
function normalize(raw: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...raw);
  if (max === 0) return raw.map(() => (reverse ? 100 : 0));
  return raw.map((v) => {
    const s = Math.floor((v * 100) / max);
    return reverse ? 100 - s : s;
  });
}

/** Spreading: pods of the same controller on the node, plus matches in the pod's soft domains. */
function spreadRaw(pod: PodInfo, nodes: readonly NodeInfo[], all: readonly NodeInfo[]): number[] {
  const owner = controllerUid(pod);
  const soft = spreadConstraints(pod, "ScheduleAnyway");
  const counts = soft.length > 0 ? countPerDomain(pod, soft, all) : [];
  return nodes.map((node) => {
    let n = 0;
    if (owner) {
      for (const p of node.pods.values()) {
        if (p.namespace === pod.namespace && controllerUid(p) === owner) n++;
      }
    }
    soft.forEach((c, i) => n += counts[i].get(node.labels[c.topologyKey]) ?? 0);
    return n;
  });
}

function preferNoScheduleRaw(pod: PodInfo, node: NodeInfo): number {
  const tolerations = tolerationsOf(pod);
  return node.taints.filter((t) =>
    t.effect === "PreferNoSchedule" && !tolerations.some((tol) => tolerates(tol, t))
  ).length;
}

/** The total score of each of `nodes` (which fit the pod) out of the cluster's `all` nodes. */
export function scoreNodes(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  all: readonly NodeInfo[],
): number[] {
  const fit = nodes.map((n) => leastAllocatedScore(pod, n));
  const affinity = normalize(nodes.map((n) => preferredNodeAffinityScore(pod, n)), false);
  const taints = normalize(nodes.map((n) => preferNoScheduleRaw(pod, n)), true);
  const spread = normalize(spreadRaw(pod, nodes, all), true);
  return nodes.map((_, i) => fit[i] + 2 * affinity[i] + 3 * taints[i] + 2 * spread[i]);
}

/** The index of the highest score, ties broken at random (kube's selectHost). */
export function pickHighest(scores: readonly number[], random: () => number): number {
  let best = -1, ties = 0;
  for (let i = 0; i < scores.length; i++) {
    if (best < 0 || scores[i] > scores[best]) {
      best = i;
      ties = 1;
    } else if (scores[i] === scores[best]) {
      ties++;
      if (random() * ties < 1) best = i;
    }
  }
  return best;
}
