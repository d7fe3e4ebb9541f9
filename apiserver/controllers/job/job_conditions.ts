/**
 * A Job's status conditions as kube 1.32's job controller writes them: the interim
 * `FailureTarget` and `SuccessCriteriaMet`, then the terminal `Failed` and `Complete` (with the
 * same reason and message) once no pod is left to count, and `Suspended`.
 *
 * @module
 */
import { rfc3339 } from "../../registry/generic/clock.ts";

/** One condition of a Job's status. */
export interface JobCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

/** A Job's status as the controller edits it. */
export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  ready?: number;
  terminating?: number;
  succeeded?: number;
  failed?: number;
  completedIndexes?: string;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
  [field: string]: unknown;
}

/** The reasons and messages of kube's job controller. */
export const JOB_REASONS = {
  completions: ["CompletionsReached", "Reached expected number of succeeded pods"],
  backoff: ["BackoffLimitExceeded", "Job has reached the specified backoff limit"],
  deadline: ["DeadlineExceeded", "Job was active longer than specified deadline"],
} as const;

/** The condition of `type` when its status is True. */
export function trueCondition(status: JobStatus, type: string): JobCondition | undefined {
  return status.conditions?.find((c) => c.type === type && c.status === "True");
}

/** Whether the Job is finished (Complete or Failed). */
export function isFinished(status: JobStatus): boolean {
  return !!(trueCondition(status, "Complete") || trueCondition(status, "Failed"));
}

/**
 * Sets the condition of `type` to `value` (with reason and message); a new condition with
 * status False is not added. Answers whether anything changed.
 */
export function setCondition(
  status: JobStatus,
  type: string,
  value: "True" | "False",
  reason: string,
  message: string,
  now: number,
): boolean {
  const at = rfc3339(now);
  const conditions = status.conditions ??= [];
  const existing = conditions.find((c) => c.type === type);
  if (!existing) {
    if (value === "False") return false;
    conditions.push({
      type,
      status: value,
      lastProbeTime: at,
      lastTransitionTime: at,
      reason,
      message,
    });
    return true;
  }
  if (existing.status === value && existing.reason === reason && existing.message === message) {
    return false;
  }
  if (existing.status !== value) existing.lastTransitionTime = at;
  Object.assign(existing, { status: value, reason, message, lastProbeTime: at });
  return true;
}
