/**
 * `backoffLimitPerIndex` of Indexed Jobs (kube's JobBackoffLimitPerIndex): each index counts its
 * own failures, carried from pod to pod in the `batch.kubernetes.io/job-index-failure-count`
 * annotation; an index that fails more than the limit, or whose pod a `FailIndex` rule matched,
 * is recorded in `status.failedIndexes` and gets no more pods. Too many failed indexes
 * (`maxFailedIndexes`) fail the Job, as does finishing with any.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { JobStatus } from "./job_conditions.ts";
import { jobSpec } from "./job_context.ts";
import { indexOf, isPodFailed, phaseOf } from "./job_pods.ts";
import { matchPodFailurePolicy } from "./pod_failure_policy.ts";
import { formatIndexes, parseIndexes } from "./completed_indexes.ts";

/** The annotation with the failures of the pod's index before it. */
export const INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count";

/** kube's reasons and messages of the per-index failures. */
export const PER_INDEX_REASONS = {
  maxFailed: [
    "MaxFailedIndexesExceeded",
    "Job has exceeded the specified maximal number of failed indexes",
  ],
  failed: ["FailedIndexes", "Job has failed indexes"],
} as const;

/** Whether the Job counts failures per index. */
export function perIndex(job: KubeObject): boolean {
  const spec = jobSpec(job);
  return spec.completionMode === "Indexed" && typeof spec.backoffLimitPerIndex === "number";
}

/**
 * The failures of each index so far (from the pods' annotations and their own failure), and
 * the indexes a `FailIndex` rule failed.
 */
export function indexFailures(
  job: KubeObject,
  pods: KubeObject[],
): { counts: Map<number, number>; failIndex: Set<number> } {
  const completions = Number(jobSpec(job).completions ?? 0);
  const counts = new Map<number, number>();
  const failIndex = new Set<number>();
  for (const pod of pods) {
    const index = indexOf(pod, completions);
    if (index === undefined) continue;
    let n = Number(pod.metadata.annotations?.[INDEX_FAILURE_COUNT] ?? 0) || 0;
    if (isPodFailed(pod, job)) {
      const verdict = phaseOf(pod) === "Failed"
        ? matchPodFailurePolicy(jobSpec(job).podFailurePolicy, pod).action
        : "Count";
      if (verdict === "FailIndex") failIndex.add(index);
      if (verdict !== "Ignore") n++;
    }
    counts.set(index, Math.max(counts.get(index) ?? 0, n));
  }
  return { counts, failIndex };
}

/** Records the indexes past their limit in `status.failedIndexes`; answers the counts. */
export function updateFailedIndexes(
  job: KubeObject,
  pods: KubeObject[],
  status: JobStatus,
): Map<number, number> {
  if (!perIndex(job)) return new Map();
  const spec = jobSpec(job);
  const completions = Number(spec.completions ?? 0);
  const limit = Number(spec.backoffLimitPerIndex);
  const { counts, failIndex } = indexFailures(job, pods);
  const failed = parseIndexes(status.failedIndexes, completions);
  const completed = parseIndexes(status.completedIndexes, completions);
  for (const [index, n] of counts) if (n > limit) failed.add(index);
  for (const index of failIndex) failed.add(index);
  for (const index of completed) failed.delete(index);
  status.failedIndexes = formatIndexes(failed);
  return counts;
}

/** The per-index failure of the Job, if it failed so: [reason, message]. */
export function perIndexFailure(
  job: KubeObject,
  status: JobStatus,
): readonly [string, string] | undefined {
  if (!perIndex(job)) return undefined;
  const spec = jobSpec(job);
  const completions = Number(spec.completions ?? 0);
  const failed = parseIndexes(status.failedIndexes, completions);
  if (typeof spec.maxFailedIndexes === "number" && failed.size > spec.maxFailedIndexes) {
    return PER_INDEX_REASONS.maxFailed;
  }
  const completed = parseIndexes(status.completedIndexes, completions);
  if (failed.size > 0 && failed.size + completed.size >= completions) {
    return PER_INDEX_REASONS.failed;
  }
  return undefined;
}
