/**
 * What kube's controllers read off a pod (pkg/api/v1/pod and pkg/controller's helpers):
 * whether it is active, ready, available for `minReadySeconds`, terminal, and since when it
 * has been ready.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

/** The pod's phase ("" when unset). */
export function podPhase(pod: KubeObject): string {
  return ((pod.status ?? {}) as { phase?: string }).phase ?? "";
}

/** The pod's condition of `type`. */
export function podCondition(pod: KubeObject, type: string): Condition | undefined {
  const cs = ((pod.status ?? {}) as { conditions?: Condition[] }).conditions ?? [];
  return cs.find((c) => c.type === type);
}

/** Whether the pod has finished (Succeeded or Failed). */
export function isTerminal(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === "Succeeded" || phase === "Failed";
}

/** kube's IsPodActive: not finished and not being deleted. */
export function isActive(pod: KubeObject): boolean {
  return !isTerminal(pod) && !pod.metadata.deletionTimestamp;
}

/** Whether the pod's Ready condition is True. */
export function isReady(pod: KubeObject): boolean {
  return podCondition(pod, "Ready")?.status === "True";
}

/** When the pod became ready (ms), or undefined. */
export function readySince(pod: KubeObject): number | undefined {
  const c = podCondition(pod, "Ready");
  if (c?.status !== "True" || !c.lastTransitionTime) return undefined;
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}

/** kube's IsPodAvailable: ready for at least `minReadySeconds` at `now`. */
export function isAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = readySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 <= now;
}

/** The sum of the restart counts of the pod's containers. */
export function restartCount(pod: KubeObject): number {
  const st = (pod.status ?? {}) as { containerStatuses?: { restartCount?: number }[] };
  return (st.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

/** The pod's node ("" when unscheduled). */
export function nodeNameOf(pod: KubeObject): string {
  return ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? "";
}
