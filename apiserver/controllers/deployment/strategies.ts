/**
 * kube's rollout strategies and scaling (rolling.go, recreate.go, sync.go's scale): the
 * RollingUpdate steps bounded by maxSurge and maxUnavailable, Recreate's scale-down, wait and
 * scale-up, and proportional scaling of every active set when the Deployment is resized in
 * the middle of a rollout.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isComplete, rolloutStatus } from "./deployment_status.ts";
import {
  active,
  byCreation,
  DESIRED_REPLICAS,
  isRollingUpdate,
  MAX_REPLICAS,
  maxSurge,
  maxUnavailable,
  replicas,
  specReplicas,
  status,
} from "./deployment_util.ts";
import { newReplicasCount, type Rollout } from "./rollout.ts";

/** Writes the rollout status (kube's syncRolloutStatus); answers the status written. */
export async function syncRolloutStatus(r: Rollout, newRS: KubeObject | undefined): Promise<void> {
  const all = r.sets;
  await r.writeStatus(rolloutStatus(r.d, all, newRS, r.deps.now()));
}

/** kube's rolloutRolling. */
export async function rolloutRolling(r: Rollout): Promise<void> {
  let { newRS, olds } = await r.replicaSets(true);
  if (newRS) {
    const want = replicas(r.d);
    const cur = replicas(newRS);
    if (cur !== want) {
      const to = cur > want ? want : newReplicasCount(r.d, r.sets, newRS);
      const res = await r.scaleSet(newRS, to);
      newRS = res.rs;
      if (res.scaled) return await syncRolloutStatus(r, newRS);
    }
  }
  olds = r.sets.filter((s) => s.metadata.uid !== newRS?.metadata.uid);
  if (await reconcileOld(r, olds, newRS)) return await syncRolloutStatus(r, newRS);
  const s = rolloutStatus(r.d, r.sets, newRS, r.deps.now());
  if (isComplete(r.d, s)) await r.cleanup(olds);
  await syncRolloutStatus(r, newRS);
}

/** kube's reconcileOldReplicaSets: scales old sets down as far as availability allows. */
async function reconcileOld(
  r: Rollout,
  olds: KubeObject[],
  newRS: KubeObject | undefined,
): Promise<boolean> {
  const oldCount = specReplicas(olds);
  if (oldCount === 0) return false;
  const all = specReplicas(r.sets);
  const minAvailable = replicas(r.d) - maxUnavailable(r.d);
  const newUnavailable = newRS ? replicas(newRS) - (status(newRS).availableReplicas ?? 0) : 0;
  const maxScaledDown = all - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  // First the unhealthy replicas of old sets, oldest first.
  let cleaned = 0;
  for (const rs of byCreation(active(olds))) {
    if (cleaned >= maxScaledDown) break;
    const unhealthy = replicas(rs) - (status(rs).availableReplicas ?? 0);
    if (unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    await r.scaleSet(rs, replicas(rs) - down);
    cleaned += down;
  }
  // Then available ones, as long as enough stay available.
  const current = r.sets.filter((s) => olds.some((o) => o.metadata.uid === s.metadata.uid));
  const available = r.sets.reduce((n, s) => n + (status(s).availableReplicas ?? 0), 0);
  let scaledDown = 0;
  if (available > minAvailable) {
    const total = available - minAvailable;
    for (const rs of byCreation(active(current))) {
      if (scaledDown >= total) break;
      const down = Math.min(replicas(rs), total - scaledDown);
      await r.scaleSet(rs, replicas(rs) - down);
      scaledDown += down;
    }
  }
  return cleaned + scaledDown > 0;
}

/** kube's rolloutRecreate; `oldPodsRunning` tells whether any old pod still runs. */
export async function rolloutRecreate(
  r: Rollout,
  oldPodsRunning: (olds: KubeObject[]) => boolean,
): Promise<void> {
  let { newRS, olds } = await r.replicaSets(false);
  let scaled = false;
  for (const rs of active(olds)) {
    if ((await r.scaleSet(rs, 0)).scaled) scaled = true;
  }
  if (scaled) return await syncRolloutStatus(r, newRS);
  olds = r.sets.filter((s) => s.metadata.uid !== newRS?.metadata.uid);
  if (oldPodsRunning(olds)) return await syncRolloutStatus(r, newRS);
  if (!newRS) ({ newRS, olds } = await r.replicaSets(true));
  if (newRS) newRS = (await r.scaleSet(newRS, replicas(r.d))).rs;
  const s = rolloutStatus(r.d, r.sets, newRS, r.deps.now());
  if (isComplete(r.d, s)) await r.cleanup(olds);
  await syncRolloutStatus(r, newRS);
}

/** kube's isScalingEvent: an active set's desired-replicas annotation is not the Deployment's. */
export async function isScalingEvent(r: Rollout): Promise<boolean> {
  const { newRS, olds } = await r.replicaSets(false);
  return active([newRS, ...olds]).some((rs) => {
    const desired = rs.metadata.annotations?.[DESIRED_REPLICAS];
    return desired !== undefined && desired !== String(replicas(r.d));
  });
}

/** kube's sync: scale, clean up when paused, write the status. */
export async function syncScale(r: Rollout): Promise<void> {
  const { newRS, olds } = await r.replicaSets(false);
  await scale(r, newRS, olds);
  const refreshed = r.sets.filter((s) => s.metadata.uid !== newRS?.metadata.uid);
  if ((r.d.spec as { paused?: boolean }).paused) await r.cleanup(refreshed);
  const current = newRS && r.sets.find((s) => s.metadata.uid === newRS.metadata.uid);
  await r.writeStatus(calculate(r, current));
}

function calculate(r: Rollout, newRS: KubeObject | undefined) {
  const s = rolloutStatus(r.d, r.sets, newRS, r.deps.now());
  // kube's sync writes calculateStatus only: the Progressing condition stays as it was.
  const progressing = (status(r.d).conditions ?? []).find((c) => c.type === "Progressing");
  s.conditions = [
    ...(s.conditions ?? []).filter((c) => c.type !== "Progressing"),
    ...(progressing ? [progressing] : []),
  ];
  return s;
}

/** kube's scale: one active set takes the size; otherwise proportional over the active sets. */
async function scale(r: Rollout, newRS: KubeObject | undefined, olds: KubeObject[]): Promise<void> {
  const want = replicas(r.d);
  const activeOrLatest = findActiveOrLatest(newRS, olds);
  if (activeOrLatest !== null) {
    if (activeOrLatest && replicas(activeOrLatest) !== want) await r.scaleSet(activeOrLatest, want);
    return;
  }
  if (newRS && isSaturated(r.d, newRS)) {
    for (const rs of active(olds)) await r.scaleSet(rs, 0);
    return;
  }
  if (!isRollingUpdate(r.d)) return;
  const sets = active([...olds, newRS]);
  const allowed = want > 0 ? want + maxSurge(r.d) : 0;
  const toAdd = allowed - specReplicas(sets);
  const newer = (a: KubeObject, b: KubeObject) =>
    Date.parse(b.metadata.creationTimestamp!) - Date.parse(a.metadata.creationTimestamp!);
  sets.sort((a, b) => replicas(b) - replicas(a) || (toAdd > 0 ? newer(a, b) : -newer(a, b)));
  const sizes = new Map<KubeObject, number>();
  let added = 0;
  for (const rs of sets) {
    const p = toAdd === 0 ? 0 : proportion(r.d, rs, toAdd, added);
    sizes.set(rs, replicas(rs) + p);
    added += p;
  }
  for (const [i, rs] of sets.entries()) {
    let size = sizes.get(rs)!;
    if (i === 0 && toAdd !== 0) size = Math.max(size + toAdd - added, 0);
    await r.scaleSet(rs, size, toAdd > 0 ? "up" : "down");
  }
}

/** The only active set, the latest when none is, or null when several are. */
function findActiveOrLatest(
  newRS: KubeObject | undefined,
  olds: KubeObject[],
): KubeObject | undefined | null {
  if (!newRS && olds.length === 0) return undefined;
  const sorted = byCreation(olds).reverse();
  const act = active([...sorted, newRS]);
  if (act.length === 0) return newRS ?? sorted[0];
  if (act.length === 1) return act[0];
  return null;
}

function isSaturated(d: KubeObject, rs: KubeObject): boolean {
  const desired = rs.metadata.annotations?.[DESIRED_REPLICAS];
  return desired === String(replicas(d)) && (status(rs).availableReplicas ?? 0) === replicas(d) &&
    replicas(rs) === replicas(d);
}

/** kube's GetProportion. */
function proportion(d: KubeObject, rs: KubeObject, toAdd: number, added: number): number {
  if (replicas(rs) === 0 || toAdd === added) return 0;
  const fraction = setFraction(d, rs);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function setFraction(d: KubeObject, rs: KubeObject): number {
  if (replicas(d) === 0) return -replicas(rs);
  const deploymentReplicas = replicas(d) + maxSurge(d);
  const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS] ?? NaN);
  const base = Number.isInteger(annotated) ? annotated : (status(d).replicas ?? 0);
  if (base === 0) return 0;
  return Math.round((replicas(rs) * deploymentReplicas) / base) - replicas(rs);
}
