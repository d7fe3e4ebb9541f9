/**
 * Message descriptors of batch/v1 (k8s.io/api/batch/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of batch/v1 (k8s.io/api/batch/v1). */
export const batchV1Messages: MessageTable = {
  "batch.v1.CronJob": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "batch.v1.CronJobSpec"],
    [3, "status", "batch.v1.CronJobStatus"],
  ],
  "batch.v1.CronJobList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]batch.v1.CronJob"],
  ],
  "batch.v1.CronJobSpec": [
    [1, "schedule", "string", 1],
    [8, "timeZone", "string", 1],
    [2, "startingDeadlineSeconds", "int64", 1],
    [3, "concurrencyPolicy", "string"],
    [4, "suspend", "bool", 1],
    [5, "jobTemplate", "batch.v1.JobTemplateSpec"],
    [6, "successfulJobsHistoryLimit", "int32", 1],
    [7, "failedJobsHistoryLimit", "int32", 1],
  ],
  "batch.v1.CronJobStatus": [
    [1, "active", "[]core.v1.ObjectReference"],
    [4, "lastScheduleTime", "meta.v1.Time"],
    [5, "lastSuccessfulTime", "meta.v1.Time"],
  ],
  "batch.v1.Job": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "batch.v1.JobSpec"],
    [3, "status", "batch.v1.JobStatus"],
  ],
  "batch.v1.JobCondition": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
    [3, "lastProbeTime", "meta.v1.Time"],
    [4, "lastTransitionTime", "meta.v1.Time"],
    [5, "reason", "string"],
    [6, "message", "string"],
  ],
  "batch.v1.JobList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]batch.v1.Job"],
  ],
  "batch.v1.JobSpec": [
    [1, "parallelism", "int32", 1],
    [2, "completions", "int32", 1],
    [3, "activeDeadlineSeconds", "int64", 1],
    [11, "podFailurePolicy", "batch.v1.PodFailurePolicy"],
    [16, "successPolicy", "batch.v1.SuccessPolicy"],
    [7, "backoffLimit", "int32", 1],
    [12, "backoffLimitPerIndex", "int32", 1],
    [13, "maxFailedIndexes", "int32", 1],
    [4, "selector", "meta.v1.LabelSelector"],
    [5, "manualSelector", "bool", 1],
    [6, "template", "core.v1.PodTemplateSpec"],
    [8, "ttlSecondsAfterFinished", "int32", 1],
    [9, "completionMode", "string", 1],
    [10, "suspend", "bool", 1],
    [14, "podReplacementPolicy", "string", 1],
    [15, "managedBy", "string", 1],
  ],
  "batch.v1.JobStatus": [
    [1, "conditions", "[]batch.v1.JobCondition"],
    [2, "startTime", "meta.v1.Time"],
    [3, "completionTime", "meta.v1.Time"],
    [4, "active", "int32"],
    [5, "succeeded", "int32"],
    [6, "failed", "int32"],
    [11, "terminating", "int32", 1],
    [7, "completedIndexes", "string"],
    [10, "failedIndexes", "string", 1],
    [8, "uncountedTerminatedPods", "batch.v1.UncountedTerminatedPods"],
    [9, "ready", "int32", 1],
  ],
  "batch.v1.JobTemplateSpec": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "spec", "batch.v1.JobSpec"],
  ],
  "batch.v1.PodFailurePolicy": [
    [1, "rules", "[]batch.v1.PodFailurePolicyRule"],
  ],
  "batch.v1.PodFailurePolicyOnExitCodesRequirement": [
    [1, "containerName", "string", 1],
    [2, "operator", "string", 1],
    [3, "values", "[]int32"],
  ],
  "batch.v1.PodFailurePolicyOnPodConditionsPattern": [
    [1, "type", "string", 1],
    [2, "status", "string", 1],
  ],
  "batch.v1.PodFailurePolicyRule": [
    [1, "action", "string", 1],
    [2, "onExitCodes", "batch.v1.PodFailurePolicyOnExitCodesRequirement"],
    [3, "onPodConditions", "[]batch.v1.PodFailurePolicyOnPodConditionsPattern"],
  ],
  "batch.v1.SuccessPolicy": [
    [1, "rules", "[]batch.v1.SuccessPolicyRule"],
  ],
  "batch.v1.SuccessPolicyRule": [
    [1, "succeededIndexes", "string", 1],
    [2, "succeededCount", "int32", 1],
  ],
  "batch.v1.UncountedTerminatedPods": [
    [1, "succeeded", "[]string"],
    [2, "failed", "[]string"],
  ],
};
