/**
 * What a Job sync decides once its finished pods are counted: whether the Job reached its
 * success or failure criteria (the interim conditions), and then kube's `manageJob`: remove the
 * pods of a finishing or suspended Job, finish it once no pod is left to count, or create and
 * delete pods to reach the wanted number of active ones (per index for Indexed jobs), waiting
 * out the failure back-off.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { rfc3339 } from "../../registry/generic/clock.ts";
import { JOB_REASONS, type JobStatus, setCondition, trueCondition } from "./job_conditions.ts";
import { indexOf, isActive, isReady, isTerminating, isTracked, newJobPod } from "./job_pods.ts";
import { parseIndexes } from "./completed_indexes.ts";
import { matchSuccessPolicy } from "./success_policy.ts";
import { perIndexFailure } from "./per_index.ts";
import type { Counted } from "./job_tracking.ts";
import { type JobContext, jobSpec } from "./job_context.ts";

/** The first back-off after a failure, and the longest (kube's). */
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_MAX_MS = 10 * 60_000;

/** What decideOutcome found. */
export interface Outcome {
  /** The Job met its success or failure criteria: its pods go, then it finishes. */
  finishing: boolean;
  /** Time left before activeDeadlineSeconds, ms. */
  deadlineIn?: number;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" ? v : undefined;
}

/** Adds FailureTarget or SuccessCriteriaMet when the Job reached them. */
export function decideOutcome(
  job: KubeObject,
  status: JobStatus,
  counted: Counted,
  now: number,
): Outcome {
  if (trueCondition(status, "FailureTarget") || trueCondition(status, "SuccessCriteriaMet")) {
    return { finishing: true };
  }
  const spec = jobSpec(job);
  let failure: readonly [string, string] | undefined;
  let deadlineIn: number | undefined;
  const deadline = num(spec.activeDeadlineSeconds);
  // A Job without a start time starts in this sync.
  const start = status.startTime ? Date.parse(status.startTime) : now;
  const indexFailure = perIndexFailure(job, status);
  if (counted.failJob) failure = ["PodFailurePolicy", counted.failJob];
  else if (indexFailure) failure = indexFailure;
  else if ((status.failed ?? 0) > (num(spec.backoffLimit) ?? 6)) failure = JOB_REASONS.backoff;
  else if (deadline !== undefined && spec.suspend !== true) {
    deadlineIn = start + deadline * 1000 - now;
    if (deadlineIn <= 0) failure = JOB_REASONS.deadline;
  }
  if (failure) {
    setCondition(status, "FailureTarget", "True", failure[0], failure[1], now);
    return { finishing: true };
  }
  const completions = num(spec.completions) ?? 0;
  const byPolicy = spec.completionMode === "Indexed"
    ? matchSuccessPolicy(
      spec.successPolicy,
      completions,
      parseIndexes(status.completedIndexes, completions),
    )
    : undefined;
  if (byPolicy) {
    setCondition(status, "SuccessCriteriaMet", "True", "SuccessPolicy", byPolicy, now);
    return { finishing: true };
  }
  if (succeededEnough(job, status, counted)) {
    const [reason, message] = JOB_REASONS.completions;
    setCondition(status, "SuccessCriteriaMet", "True", reason, message, now);
    return { finishing: true };
  }
  return { finishing: false, deadlineIn };
}

function succeededEnough(job: KubeObject, status: JobStatus, counted: Counted): boolean {
  const spec = jobSpec(job);
  const completions = num(spec.completions);
  const succeeded = status.succeeded ?? 0;
  if (completions === undefined) {
    return succeeded > 0 && !counted.remaining.some(isActive);
  }
  if (spec.completionMode === "Indexed") {
    return parseIndexes(status.completedIndexes, completions).size >= completions;
  }
  return succeeded >= completions;
}

/** Creates and deletes the Job's pods; answers when the Job wants to be synced again (ms). */
export async function manageJob(
  job: KubeObject,
  remaining: KubeObject[],
  status: JobStatus,
  outcome: Outcome,
  ctx: JobContext,
): Promise<number | undefined> {
  const spec = jobSpec(job);
  let active = remaining.filter(isActive);
  if (outcome.finishing || spec.suspend === true) {
    for (const pod of active) await deletePod(job, pod, ctx, !outcome.finishing);
    setCounts(status, remaining, []);
    if (outcome.finishing) await finish(job, remaining, status, ctx);
    else await suspend(job, status, ctx);
    return undefined;
  }
  if (trueCondition(status, "Suspended")) {
    setCondition(status, "Suspended", "False", "JobResumed", "Job resumed", ctx.now);
    status.startTime = rfc3339(ctx.now);
    await ctx.events.normal(job, "Resumed", "Job resumed");
  }
  status.startTime ??= rfc3339(ctx.now);
  const plan = spec.completionMode === "Indexed"
    ? indexedPlan(job, active, status)
    : countPlan(job, active, status);
  for (const pod of plan.extra) await deletePod(job, pod, ctx, true);
  active = active.filter((p) => !plan.extra.includes(p));
  let again = outcome.deadlineIn;
  const wait = backoffLeft(ctx);
  if (plan.create.length && wait > 0) again = Math.min(again ?? wait, wait);
  else {
    for (const index of plan.create) {
      const created = await createPod(job, index, ctx);
      if (created) active.push(created);
    }
  }
  setCounts(status, remaining.filter((p) => !plan.extra.includes(p)), active);
  return again;
}

/** The pods to create (index or undefined each) and the active pods to delete. */
interface Plan {
  create: (number | undefined)[];
  extra: KubeObject[];
}

function countPlan(job: KubeObject, active: KubeObject[], status: JobStatus): Plan {
  const spec = jobSpec(job);
  const parallelism = num(spec.parallelism) ?? 1;
  const completions = num(spec.completions);
  const succeeded = status.succeeded ?? 0;
  const want = completions === undefined
    ? (succeeded > 0 ? active.length : parallelism)
    : Math.max(0, Math.min(parallelism, completions - succeeded));
  if (active.length > want) {
    // Unscheduled and not-ready pods go first.
    const rank = (p: KubeObject) =>
      (isReady(p) ? 2 : 0) + ((p.spec as { nodeName?: string })?.nodeName ? 1 : 0);
    const sorted = [...active].sort((a, b) => rank(a) - rank(b));
    return { create: [], extra: sorted.slice(0, active.length - want) };
  }
  return { create: Array(want - active.length).fill(undefined), extra: [] };
}

function indexedPlan(job: KubeObject, active: KubeObject[], status: JobStatus): Plan {
  const spec = jobSpec(job);
  const completions = num(spec.completions) ?? 0;
  const parallelism = num(spec.parallelism) ?? 1;
  const completed = parseIndexes(status.completedIndexes, completions);
  // A failed index gets no more pods (backoffLimitPerIndex).
  for (const i of parseIndexes(status.failedIndexes, completions)) completed.add(i);
  const seen = new Set<number>();
  const extra: KubeObject[] = [];
  for (const pod of active) {
    const index = indexOf(pod, completions);
    if (index === undefined || seen.has(index) || completed.has(index)) extra.push(pod);
    else seen.add(index);
  }
  const room = Math.max(0, parallelism - seen.size);
  const create: number[] = [];
  for (let i = 0; i < completions && create.length < room; i++) {
    if (!completed.has(i) && !seen.has(i)) create.push(i);
  }
  return { create, extra };
}

function backoffLeft(ctx: JobContext): number {
  const n = ctx.failures.sinceSuccess;
  if (n === 0) return 0;
  const delay = Math.min(BACKOFF_BASE_MS * 2 ** (n - 1), BACKOFF_MAX_MS);
  return ctx.failures.lastAt + delay - ctx.now;
}

function setCounts(status: JobStatus, remaining: KubeObject[], active: KubeObject[]): void {
  status.active = active.length;
  status.ready = active.filter(isReady).length;
  status.terminating =
    remaining.filter((p) => isTerminating(p) || !active.includes(p) && isActive(p)).length;
  status.succeeded ??= 0;
  status.failed ??= 0;
  status.uncountedTerminatedPods ??= {};
}

/** Adds the terminal condition once no pod is left to count. */
async function finish(
  job: KubeObject,
  remaining: KubeObject[],
  status: JobStatus,
  ctx: JobContext,
): Promise<void> {
  const uncounted = status.uncountedTerminatedPods ?? {};
  if (remaining.some(isTracked) || uncounted.succeeded?.length || uncounted.failed?.length) return;
  const success = trueCondition(status, "SuccessCriteriaMet");
  const target = success ?? trueCondition(status, "FailureTarget")!;
  const type = success ? "Complete" : "Failed";
  const changed = setCondition(status, type, "True", target.reason!, target.message!, ctx.now);
  if (!changed) return;
  if (success) status.completionTime = rfc3339(ctx.now);
  else await ctx.events.warning(job, target.reason!, target.message!);
}

async function suspend(job: KubeObject, status: JobStatus, ctx: JobContext): Promise<void> {
  if (setCondition(status, "Suspended", "True", "JobSuspended", "Job suspended", ctx.now)) {
    delete status.startTime;
    await ctx.events.normal(job, "Suspended", "Job suspended");
  }
}

async function createPod(
  job: KubeObject,
  index: number | undefined,
  ctx: JobContext,
): Promise<KubeObject | undefined> {
  try {
    const failures = index === undefined ? undefined : ctx.indexFailures?.get(index);
    const pod = await ctx.pods.create(job.metadata.namespace!, newJobPod(job, index, failures));
    await ctx.events.normal(job, "SuccessfulCreate", `Created pod: ${pod.metadata.name}`);
    return pod;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    await ctx.events.warning(job, "FailedCreate", `Error creating: ${err.message}`);
    return undefined;
  }
}

async function deletePod(
  job: KubeObject,
  pod: KubeObject,
  ctx: JobContext,
  record: boolean,
): Promise<void> {
  try {
    await ctx.pods.delete(pod.metadata.namespace!, pod.metadata.name!, {
      preconditions: { uid: pod.metadata.uid },
    });
  } catch (err) {
    if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
    throw err;
  }
  pod.metadata.deletionTimestamp ??= rfc3339(ctx.now);
  if (record) await ctx.events.normal(job, "SuccessfulDelete", `Deleted pod: ${pod.metadata.name}`);
}
