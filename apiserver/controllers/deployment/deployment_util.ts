/**
 * What kube's deployment controller reads and writes on Deployments and their ReplicaSets
 * (pkg/controller/deployment/util): the annotations, revisions, surge and unavailability
 * numbers, which ReplicaSet is the new one, and the conditions with kube's reasons.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { scaledValue } from "../workloads/int_or_percent.ts";

export const REVISION = "deployment.kubernetes.io/revision";
export const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
export const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
export const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
export const POD_TEMPLATE_HASH = "pod-template-hash";

/** Annotations never copied between a Deployment and its ReplicaSets. */
const SKIPPED = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  "deployment.kubernetes.io/error-selector-overlapping-with",
  "deployment.kubernetes.io/selector-updated-at",
]);

/** Reasons of the Progressing and Available conditions. */
export const REASONS = {
  updated: "ReplicaSetUpdated",
  createError: "ReplicaSetCreateError",
  created: "NewReplicaSetCreated",
  found: "FoundNewReplicaSet",
  available: "NewReplicaSetAvailable",
  timedOut: "ProgressDeadlineExceeded",
  paused: "DeploymentPaused",
  resumed: "DeploymentResumed",
  minAvailable: "MinimumReplicasAvailable",
  minUnavailable: "MinimumReplicasUnavailable",
} as const;

/** A deployment condition. */
export interface DeploymentCondition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** A Deployment's or ReplicaSet's spec. */
export function spec(o: KubeObject): Record<string, unknown> {
  return (o.spec ?? {}) as Record<string, unknown>;
}

/** A Deployment's or ReplicaSet's status. */
export function status(o: KubeObject): Record<string, number | undefined> & {
  conditions?: DeploymentCondition[];
  collisionCount?: number;
} {
  return (o.status ?? {}) as ReturnType<typeof status>;
}

/** `spec.replicas` (default 1). */
export function replicas(o: KubeObject | undefined): number {
  if (!o) return 0;
  const r = spec(o).replicas;
  return typeof r === "number" ? r : 1;
}

/** The revision annotation as a number (0 when absent or bad). */
export function revisionOf(o: KubeObject): number {
  const v = Number(o.metadata.annotations?.[REVISION] ?? "0");
  return Number.isInteger(v) ? v : 0;
}

/** The highest revision among `sets`. */
export function maxRevision(sets: readonly KubeObject[]): number {
  return sets.reduce((m, s) => Math.max(m, revisionOf(s)), 0);
}

function rollingUpdate(d: KubeObject): Record<string, unknown> | undefined {
  const strategy = (spec(d).strategy ?? {}) as {
    type?: string;
    rollingUpdate?: Record<string, unknown>;
  };
  if (strategy.type === "Recreate") return undefined;
  return strategy.rollingUpdate ?? { maxSurge: "25%", maxUnavailable: "25%" };
}

/** Whether the Deployment rolls (RollingUpdate) rather than recreates. */
export function isRollingUpdate(d: KubeObject): boolean {
  return rollingUpdate(d) !== undefined;
}

/** kube's ResolveFenceposts: the surge (rounded up) and unavailability (rounded down). */
export function fenceposts(d: KubeObject): { surge: number; unavailable: number } {
  const ru = rollingUpdate(d);
  if (!ru) return { surge: 0, unavailable: 0 };
  const desired = replicas(d);
  const surge = scaledValue(ru.maxSurge ?? "25%", desired, true);
  let unavailable = scaledValue(ru.maxUnavailable ?? "25%", desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** kube's MaxUnavailable: never more than the replicas. */
export function maxUnavailable(d: KubeObject): number {
  if (!isRollingUpdate(d) || replicas(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicas(d));
}

/** kube's MaxSurge (0 for Recreate). */
export function maxSurge(d: KubeObject): number {
  return isRollingUpdate(d) ? fenceposts(d).surge : 0;
}

/** The template without the `pod-template-hash` label, to compare templates. */
function withoutHash(template: unknown): unknown {
  const t = structuredClone((template ?? {}) as KubeObject);
  if (t.metadata?.labels) {
    delete t.metadata.labels[POD_TEMPLATE_HASH];
    if (Object.keys(t.metadata.labels).length === 0) delete t.metadata.labels;
  }
  return t;
}

/** kube's EqualIgnoreHash of two pod templates. */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return deepEqual(withoutHash(a), withoutHash(b));
}

/** The oldest ReplicaSet whose template is the Deployment's (kube's FindNewReplicaSet). */
export function findNewReplicaSet(
  d: KubeObject,
  sets: readonly KubeObject[],
): KubeObject | undefined {
  return byCreation(sets).find((rs) => equalIgnoreHash(spec(rs).template, spec(d).template));
}

/** Sorted by creation time, then name. */
export function byCreation(sets: readonly KubeObject[]): KubeObject[] {
  const t = (o: KubeObject) => Date.parse(o.metadata.creationTimestamp ?? "") || 0;
  return [...sets].sort((a, b) => t(a) - t(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1));
}

/** Sets with replicas (kube's FilterActiveReplicaSets). */
export function active(sets: readonly (KubeObject | undefined)[]): KubeObject[] {
  return sets.filter((s): s is KubeObject => !!s && replicas(s) > 0);
}

/** Sum of `spec.replicas`. */
export function specReplicas(sets: readonly (KubeObject | undefined)[]): number {
  return sets.reduce((n, s) => n + (s ? replicas(s) : 0), 0);
}

/** Sum of one status field. */
export function statusSum(sets: readonly (KubeObject | undefined)[], field: string): number {
  return sets.reduce((n, s) => n + (s ? (status(s)[field] as number | undefined) ?? 0 : 0), 0);
}

/** Sets the desired- and max-replicas annotations; answers whether they changed. */
export function setReplicasAnnotations(rs: KubeObject, desired: number, max: number): boolean {
  const a = rs.metadata.annotations ??= {};
  const changed = a[DESIRED_REPLICAS] !== String(desired) || a[MAX_REPLICAS] !== String(max);
  a[DESIRED_REPLICAS] = String(desired);
  a[MAX_REPLICAS] = String(max);
  return changed;
}

/**
 * kube's SetNewReplicaSetAnnotations: the Deployment's annotations copied (but the skipped
 * ones), the revision raised to `newRevision` (recording the old one in the revision history
 * when it had one), and for a set about to be created the replicas annotations. Answers
 * whether anything changed.
 */
export function setNewReplicaSetAnnotations(
  d: KubeObject,
  rs: KubeObject,
  newRevision: number,
  exists: boolean,
): boolean {
  const a = rs.metadata.annotations ??= {};
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIPPED.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const old = a[REVISION];
  if (old === undefined || Number(old) < newRevision) {
    a[REVISION] = String(newRevision);
    if (old !== undefined) {
      a[REVISION_HISTORY] = a[REVISION_HISTORY] ? `${a[REVISION_HISTORY]},${old}` : old;
    }
    changed = true;
  }
  if (!exists && setReplicasAnnotations(rs, replicas(d), replicas(d) + maxSurge(d))) changed = true;
  return changed;
}

/** The condition of `type`. */
export function conditionOf(
  conds: readonly DeploymentCondition[] | undefined,
  type: string,
): DeploymentCondition | undefined {
  return (conds ?? []).find((c) => c.type === type);
}

/**
 * kube's SetDeploymentCondition: unchanged when status and reason are; keeps the transition
 * time when only the reason changes.
 */
export function setCondition(
  conds: DeploymentCondition[],
  next: DeploymentCondition,
): DeploymentCondition[] {
  const cur = conditionOf(conds, next.type);
  if (cur && cur.status === next.status && cur.reason === next.reason) return conds;
  if (cur && cur.status === next.status) next.lastTransitionTime = cur.lastTransitionTime;
  return [...conds.filter((c) => c.type !== next.type), next];
}

/** A new condition at `now`. */
export function newCondition(
  type: string,
  condStatus: string,
  reason: string,
  message: string,
  now: number,
): DeploymentCondition {
  const t = new Date(now).toISOString().replace(/\.\d+Z$/, "Z");
  return { type, status: condStatus, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** Whether `progressDeadlineSeconds` is set (and not MaxInt32). */
export function hasProgressDeadline(d: KubeObject): boolean {
  const s = spec(d).progressDeadlineSeconds;
  return typeof s === "number" && s !== 2147483647;
}
