/**
 * A PodDisruptionBudget's status as kube's disruption controller computes it from the pods its
 * selector picks: expectedPods and desiredHealthy (from minAvailable or maxUnavailable, a
 * percentage of the pods' controllers' scale), currentHealthy (ready pods that are neither
 * being deleted nor recently evicted), disruptionsAllowed, the disruptedPods still expected to
 * go, and the DisruptionAllowed condition.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../../shared/selectors/label_selector.ts";
import { rfc3339 } from "../../generic/clock.ts";

/** How long an evicted pod counts as disrupted before it is expected gone (kube: 2 minutes). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return isObject(v) ? v : {};
}

/** The scale of a pod's controller: its uid and desired replicas, or undefined if unknown. */
export type ScaleOf = (
  controller: { kind: string; name: string; uid: string; apiVersion: string },
  namespace: string,
) => Promise<{ uid: string; scale: number } | undefined>;

/** Sets the DisruptionAllowed condition from `status.disruptionsAllowed` (SetStatusCondition). */
export function setDisruptionAllowedCondition(
  status: Obj,
  now: number,
  reason?: string,
  message = "",
): void {
  const allowed = Number(status.disruptionsAllowed ?? 0) > 0;
  const want = {
    type: "DisruptionAllowed",
    status: allowed ? "True" : "False",
    reason: reason ?? (allowed ? "SufficientPods" : "InsufficientPods"),
    message,
    observedGeneration: status.observedGeneration,
  };
  const conds = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  const old = conds.find((c) => c.type === "DisruptionAllowed");
  const lastTransitionTime = old && old.status === want.status && old.lastTransitionTime
    ? old.lastTransitionTime
    : rfc3339(now);
  const cond = { ...want, lastTransitionTime };
  if (cond.observedGeneration === undefined) delete (cond as Obj).observedGeneration;
  status.conditions = old ? conds.map((c) => (c === old ? cond : c)) : [...conds, cond];
}

/** The pods of `pods` the budget's selector picks (a null selector picks none). */
export function podsOf(pdb: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  const sel = labelSelectorFromObject(obj(pdb.spec).selector as LabelSelectorObject | undefined);
  return pods.filter((p) => sel.matches(p.metadata.labels ?? {}));
}

function isReady(pod: KubeObject): boolean {
  const conds = obj(pod.status).conditions;
  return Array.isArray(conds) && conds.some((c) => c?.type === "Ready" && c?.status === "True");
}

/** `value` of an int-or-percent, scaled against `total` and rounded up for a percentage. */
function scaled(value: unknown, total: number): number {
  if (typeof value === "number") return value;
  const m = /^([0-9]+)%$/.exec(String(value));
  if (!m) throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(value)}`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** getExpectedScale: the summed scale of the pods' controllers (pods without one are skipped). */
async function expectedScale(pods: readonly KubeObject[], scaleOf: ScaleOf): Promise<number> {
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const ref = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (!ref || scales.has(ref.uid)) continue;
    const found = await scaleOf(ref, pod.metadata.namespace ?? "");
    if (!found) {
      throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`);
    }
    scales.set(found.uid, found.scale);
  }
  return [...scales.values()].reduce((a, b) => a + b, 0);
}

/** getExpectedPodCount: [expectedPods, desiredHealthy]. */
async function expectedCounts(
  spec: Obj,
  pods: readonly KubeObject[],
  scaleOf: ScaleOf,
): Promise<[number, number]> {
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expected = await expectedScale(pods, scaleOf);
    return [expected, Math.max(0, expected - scaled(spec.maxUnavailable, expected))];
  }
  if (typeof spec.minAvailable === "number") return [pods.length, spec.minAvailable];
  if (typeof spec.minAvailable === "string") {
    const expected = await expectedScale(pods, scaleOf);
    return [expected, scaled(spec.minAvailable, expected)];
  }
  return [0, 0];
}

/**
 * The status the disruption controller would write for `pdb` given the namespace's `pods`
 * at `now`; a failure to compute it gives kube's fail-safe status (no disruption allowed,
 * reason SyncFailed).
 */
export async function budgetStatus(
  pdb: KubeObject,
  pods: readonly KubeObject[],
  scaleOf: ScaleOf,
  now: number,
): Promise<Obj> {
  const old = obj(pdb.status);
  const generation = pdb.metadata.generation;
  try {
    const picked = podsOf(pdb, pods);
    const [expected, desired] = await expectedCounts(obj(pdb.spec), picked, scaleOf);
    const disrupted: Obj = {};
    for (const pod of picked) {
      const at = obj(old.disruptedPods)[pod.metadata.name ?? ""];
      if (pod.metadata.deletionTimestamp || typeof at !== "string") continue;
      if (Date.parse(at) + DELETION_TIMEOUT_MS >= now) disrupted[pod.metadata.name!] = at;
    }
    const healthy = picked.filter((p) =>
      !p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted) && isReady(p)
    ).length;
    const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
    const status: Obj = {
      ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
      disruptionsAllowed: allowed,
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
      observedGeneration: generation,
      conditions: old.conditions,
    };
    setDisruptionAllowedCondition(status, now);
    return status;
  } catch (err) {
    const status: Obj = { ...old, disruptionsAllowed: 0 };
    setDisruptionAllowedCondition(status, now, "SyncFailed", (err as Error).message);
    return status;
  }
}
