/**
 * Counting a Job's finished pods as kube's `trackJobStatusAndRemoveFinalizers`: a finished pod
 * that still has the tracking finalizer is first recorded in `status.uncountedTerminatedPods`
 * (and an Indexed job's index in `completedIndexes`), the status is written, then the
 * finalizers are removed, and the recorded pods move into `succeeded` and `failed`. A pod the
 * failure policy ignores is released without being counted.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { JobStatus } from "./job_conditions.ts";
import { indexOf, isPodFailed, isTracked, phaseOf } from "./job_pods.ts";
import { matchPodFailurePolicy } from "./pod_failure_policy.ts";
import { formatIndexes, parseIndexes } from "./completed_indexes.ts";
import { type JobContext, jobSpec, removeTrackingFinalizer } from "./job_context.ts";

/** What counting found. */
export interface Counted {
  /** The pods still in play: not finished, or finished but not yet released. */
  remaining: KubeObject[];
  /** The FailJob message of the failure policy, when a rule failed the Job. */
  failJob?: string;
}

/** Moves released recorded pods into the counts (`released`: uids whose finalizer is gone). */
function fold(job: KubeObject, status: JobStatus, released: (uid: string) => boolean): void {
  const uncounted = status.uncountedTerminatedPods ??= {};
  const indexed = jobSpec(job).completionMode === "Indexed";
  for (const kind of ["succeeded", "failed"] as const) {
    const uids = uncounted[kind] ?? [];
    const done = uids.filter(released);
    if (kind === "failed" || !indexed) status[kind] = (status[kind] ?? 0) + done.length;
    const left = uids.filter((u) => !released(u));
    if (left.length) uncounted[kind] = left;
    else delete uncounted[kind];
  }
  if (indexed) {
    const completions = Number(jobSpec(job).completions ?? 0);
    status.succeeded = parseIndexes(status.completedIndexes, completions).size;
  }
}

/** Counts the Job's finished pods into `status`, writing it before finalizers are removed. */
export async function countFinished(
  job: KubeObject,
  pods: KubeObject[],
  status: JobStatus,
  ctx: JobContext,
  write: (status: JobStatus) => Promise<void>,
): Promise<Counted> {
  const byUid = new Map(pods.map((p) => [p.metadata.uid!, p]));
  const recorded = new Set([
    ...status.uncountedTerminatedPods?.succeeded ?? [],
    ...status.uncountedTerminatedPods?.failed ?? [],
  ]);
  const gone = (uid: string) => !byUid.has(uid) || !isTracked(byUid.get(uid)!);
  fold(job, status, gone);
  const release: KubeObject[] = pods.filter((p) => recorded.has(p.metadata.uid!) && isTracked(p));
  const result: Counted = { remaining: [] };
  const completions = Number(jobSpec(job).completions ?? 0);
  const completed = parseIndexes(status.completedIndexes, completions);
  const uncounted = status.uncountedTerminatedPods ??= {};
  const succeeding = status.conditions?.some((c) =>
    c.type === "SuccessCriteriaMet" && c.status === "True"
  );
  for (const pod of pods) {
    const uid = pod.metadata.uid!;
    if (!isTracked(pod) || recorded.has(uid)) continue;
    if (phaseOf(pod) === "Succeeded") {
      (uncounted.succeeded ??= []).push(uid);
      const index = jobSpec(job).completionMode === "Indexed"
        ? indexOf(pod, completions)
        : undefined;
      if (index !== undefined) completed.add(index);
      ctx.failures.sinceSuccess = 0;
    } else if (succeeding && phaseOf(pod) !== "Failed" && pod.metadata.deletionTimestamp) {
      // Pods removed once the Job met its success criteria are not failures.
    } else if (isPodFailed(pod, job)) {
      const verdict = phaseOf(pod) === "Failed"
        ? matchPodFailurePolicy(jobSpec(job).podFailurePolicy, pod)
        : { action: "Count" as const };
      if (verdict.action !== "Ignore") {
        (uncounted.failed ??= []).push(uid);
        ctx.failures.sinceSuccess++;
        ctx.failures.lastAt = ctx.now;
      }
      if (verdict.action === "FailJob") result.failJob ??= verdict.message;
    } else continue;
    release.push(pod);
  }
  if (jobSpec(job).completionMode === "Indexed" && completed.size) {
    status.completedIndexes = formatIndexes(completed);
  }
  if (release.length) {
    await write(status);
    for (const pod of release) await removeTrackingFinalizer(ctx.pods, pod);
    const released = new Set(release.map((p) => p.metadata.uid!));
    fold(job, status, (uid) => released.has(uid) || gone(uid));
  }
  const releasedUids = new Set(release.map((p) => p.metadata.uid!));
  result.remaining = pods.filter((p) =>
    !releasedUids.has(p.metadata.uid!) && phaseOf(p) !== "Succeeded" && phaseOf(p) !== "Failed"
  );
  return result;
}
