/**
 * The schema declaration of batch/v1 (Job, CronJob): required fields, enums and merge markers as
 * Kubernetes 1.32's OpenAPI has them. Field names and types come from the batch/v1 descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema } from "../../schema/group_schema.ts";

const CONDITION_STATUS = ["False", "True", "Unknown"];

/** batch/v1. */
export const batchV1Schema: GroupSchema = {
  package: "batch.v1",
  group: "batch",
  version: "v1",
  openApiPrefix: "io.k8s.api.batch.v1",
  kinds: ["Job", "JobList", "CronJob", "CronJobList"],
  types: {
    Job: { description: "Job represents the configuration of a single job." },
    JobList: { required: ["items"] },
    JobSpec: {
      required: ["template"],
      fields: {
        completionMode: { enum: ["Indexed", "NonIndexed"] },
        podReplacementPolicy: { enum: ["Failed", "TerminatingOrFailed"] },
      },
    },
    JobStatus: {
      fields: {
        conditions: { ...ATOMIC_LIST, patchStrategy: "merge", patchMergeKey: "type" },
      },
    },
    JobCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    UncountedTerminatedPods: {
      fields: { succeeded: { listType: "set" }, failed: { listType: "set" } },
    },
    PodFailurePolicy: { required: ["rules"], fields: { rules: ATOMIC_LIST } },
    PodFailurePolicyRule: {
      required: ["action"],
      fields: {
        action: { enum: ["Count", "FailIndex", "FailJob", "Ignore"] },
        onPodConditions: ATOMIC_LIST,
      },
    },
    PodFailurePolicyOnExitCodesRequirement: {
      required: ["operator", "values"],
      fields: { operator: { enum: ["In", "NotIn"] }, values: { listType: "set" } },
    },
    PodFailurePolicyOnPodConditionsPattern: { required: ["type"] },
    SuccessPolicy: { required: ["rules"], fields: { rules: ATOMIC_LIST } },
    CronJob: { description: "CronJob represents the configuration of a single cron job." },
    CronJobList: { required: ["items"] },
    CronJobSpec: {
      required: ["schedule", "jobTemplate"],
      fields: {
        schedule: { description: "The schedule in Cron format." },
        concurrencyPolicy: { enum: ["Allow", "Forbid", "Replace"] },
      },
    },
    CronJobStatus: { fields: { active: ATOMIC_LIST } },
  },
};
