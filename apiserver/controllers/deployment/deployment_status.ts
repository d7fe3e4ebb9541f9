/**
 * A Deployment's status from its ReplicaSets (kube's calculateStatus and syncRolloutStatus):
 * the replica counts, the Available condition, and the Progressing condition with kube's
 * reasons and messages (`ReplicaSet "web-5d4f" is progressing.`, `... has successfully
 * progressed.`, `... has timed out progressing.`).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import {
  conditionOf,
  type DeploymentCondition,
  hasProgressDeadline,
  maxUnavailable,
  newCondition,
  REASONS,
  replicas,
  setCondition,
  spec,
  specReplicas,
  status,
  statusSum,
} from "./deployment_util.ts";

/** The status fields a Deployment's controller writes. */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  unavailableReplicas: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
}

/** kube's calculateStatus. */
export function calculateStatus(
  d: KubeObject,
  all: readonly KubeObject[],
  newRS: KubeObject | undefined,
  now: number,
): DeploymentStatus {
  const available = statusSum(all, "availableReplicas");
  const out: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: statusSum(all, "replicas"),
    updatedReplicas: statusSum([newRS], "replicas"),
    readyReplicas: statusSum(all, "readyReplicas"),
    availableReplicas: available,
    unavailableReplicas: Math.max(specReplicas(all) - available, 0),
    collisionCount: status(d).collisionCount,
    conditions: [...(status(d).conditions ?? [])],
  };
  if (out.collisionCount === undefined) delete out.collisionCount;
  const cond = available >= replicas(d) - maxUnavailable(d)
    ? newCondition(
      "Available",
      "True",
      REASONS.minAvailable,
      "Deployment has minimum availability.",
      now,
    )
    : newCondition(
      "Available",
      "False",
      REASONS.minUnavailable,
      "Deployment does not have minimum availability.",
      now,
    );
  out.conditions = setCondition(out.conditions!, cond);
  return out;
}

/** kube's DeploymentComplete. */
export function isComplete(d: KubeObject, s: DeploymentStatus): boolean {
  const want = replicas(d);
  return s.updatedReplicas === want && s.replicas === want && s.availableReplicas === want &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** kube's DeploymentProgressing: more new, fewer old, more ready or more available replicas. */
function isProgressing(d: KubeObject, s: DeploymentStatus): boolean {
  const old = status(d);
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = s.replicas - s.updatedReplicas;
  return s.updatedReplicas > (old.updatedReplicas ?? 0) || newOld < oldOld ||
    s.readyReplicas > (old.readyReplicas ?? 0) ||
    s.availableReplicas > (old.availableReplicas ?? 0);
}

/** kube's DeploymentTimedOut. */
export function isTimedOut(d: KubeObject, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const cond = conditionOf(s.conditions, "Progressing");
  if (!cond || cond.reason === REASONS.available) return false;
  if (cond.reason === REASONS.timedOut) return true;
  const from = Date.parse(cond.lastUpdateTime ?? "");
  return !Number.isNaN(from) && from + (spec(d).progressDeadlineSeconds as number) * 1000 < now;
}

/**
 * kube's syncRolloutStatus: the status with the Progressing condition brought up to date and
 * the ReplicaSets' ReplicaFailure condition carried over.
 */
export function rolloutStatus(
  d: KubeObject,
  all: readonly KubeObject[],
  newRS: KubeObject | undefined,
  now: number,
): DeploymentStatus {
  const s = calculateStatus(d, all, newRS, now);
  let conds = s.conditions!;
  if (!hasProgressDeadline(d)) conds = conds.filter((c) => c.type !== "Progressing");
  const current = conditionOf(conds, "Progressing");
  const complete = s.replicas === s.updatedReplicas && current?.reason === REASONS.available;
  const what = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
  if (hasProgressDeadline(d) && !complete) {
    if (isComplete(d, s)) {
      conds = setCondition(
        conds,
        newCondition(
          "Progressing",
          "True",
          REASONS.available,
          `${what} has successfully progressed.`,
          now,
        ),
      );
    } else if (isProgressing(d, s)) {
      const c = newCondition(
        "Progressing",
        "True",
        REASONS.updated,
        `${what} is progressing.`,
        now,
      );
      if (current?.status === "True") c.lastTransitionTime = current.lastTransitionTime;
      conds = [...conds.filter((x) => x.type !== "Progressing"), c];
    } else if (isTimedOut(d, { ...s, conditions: conds }, now)) {
      conds = setCondition(
        conds,
        newCondition(
          "Progressing",
          "False",
          REASONS.timedOut,
          `${what} has timed out progressing.`,
          now,
        ),
      );
    }
  }
  const failure = replicaFailure(all, newRS);
  conds = failure ? setCondition(conds, failure) : conds.filter((c) => c.type !== "ReplicaFailure");
  s.conditions = conds;
  return s;
}

/** The first ReplicaFailure condition of the new set, else of the others. */
function replicaFailure(
  all: readonly KubeObject[],
  newRS: KubeObject | undefined,
): DeploymentCondition | undefined {
  for (const rs of [...(newRS ? [newRS] : []), ...all]) {
    const c = conditionOf(status(rs).conditions, "ReplicaFailure");
    if (c) return { ...c, lastUpdateTime: c.lastTransitionTime };
  }
  return undefined;
}
