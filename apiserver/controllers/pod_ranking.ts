/**
 * Which pods a ReplicaSet deletes first when it has too many (kube's ActivePodsWithRanks):
 * unscheduled before scheduled; Pending before Unknown before Running; not ready before ready;
 * lower `controller.kubernetes.io/pod-deletion-cost` first; pods sharing their node with more
 * of the set's pods first; ready for less time first; more container restarts first; newer
 * first.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { isReady, nodeNameOf, podPhase, readySince, restartCount } from "./pod_state.ts";

/** The annotation that lowers or raises a pod's claim to survive a scale-down. */
export const POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function cost(pod: KubeObject): number {
  const v = Number(pod.metadata.annotations?.[POD_DELETION_COST] ?? 0);
  return Number.isFinite(v) ? v : 0;
}

/** The `count` pods of `pods` to delete first. */
export function podsToDelete(pods: readonly KubeObject[], count: number): KubeObject[] {
  const perNode = new Map<string, number>();
  for (const p of pods) {
    const n = nodeNameOf(p);
    if (n) perNode.set(n, (perNode.get(n) ?? 0) + 1);
  }
  const rank = (p: KubeObject) => perNode.get(nodeNameOf(p)) ?? 0;
  const created = (p: KubeObject) => Date.parse(p.metadata.creationTimestamp ?? "") || 0;
  const ordered = [...pods].sort((a, b) => {
    const aNode = nodeNameOf(a) !== "", bNode = nodeNameOf(b) !== "";
    if (aNode !== bNode) return aNode ? 1 : -1;
    const phase = (PHASE_ORDER[podPhase(a)] ?? 0) - (PHASE_ORDER[podPhase(b)] ?? 0);
    if (phase !== 0) return phase;
    if (isReady(a) !== isReady(b)) return isReady(a) ? 1 : -1;
    if (cost(a) !== cost(b)) return cost(a) - cost(b);
    if (rank(a) !== rank(b)) return rank(b) - rank(a);
    if (isReady(a) && isReady(b)) {
      const ra = readySince(a) ?? 0, rb = readySince(b) ?? 0;
      if (ra !== rb) return rb - ra;
    }
    if (restartCount(a) !== restartCount(b)) return restartCount(b) - restartCount(a);
    return created(b) - created(a);
  });
  return ordered.slice(0, count);
}
