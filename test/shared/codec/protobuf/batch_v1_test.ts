import { batchV1Messages } from "../../../../shared/codec/protobuf/schema/batch_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

groupTableChecks({
  messagesName: "batchV1Messages",
  messages: batchV1Messages,
  gv: "batch/v1",
  // [message, json, number, keepZero], read from batch/v1 generated.proto and types.go (v0.32).
  fields: [
    ["batch.v1.JobSpec", "successPolicy", 16, false],
    ["batch.v1.JobSpec", "managedBy", 15, true],
    ["batch.v1.JobSpec", "backoffLimitPerIndex", 12, true],
    ["batch.v1.JobSpec", "ttlSecondsAfterFinished", 8, true],
    ["batch.v1.JobStatus", "terminating", 11, true],
    ["batch.v1.JobStatus", "ready", 9, true],
    ["batch.v1.JobStatus", "failedIndexes", 10, true],
    ["batch.v1.JobStatus", "active", 4, false],
    ["batch.v1.CronJobSpec", "timeZone", 8, true],
    ["batch.v1.CronJobSpec", "schedule", 1, true],
    ["batch.v1.CronJobStatus", "lastSuccessfulTime", 5, false],
    ["batch.v1.PodFailurePolicyOnExitCodesRequirement", "values", 3, false],
  ],
  kinds: [
    "Job",
    "JobList",
    "CronJob",
    "CronJobList",
    "Status",
    "DeleteOptions",
  ],
  fixture: "batch_v1.json",
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  kubectl: [
    [
      "create job once --image=busybox -- echo hi",
      "create_job.bin",
      {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": { "name": "once", "creationTimestamp": null },
        "spec": {
          "template": {
            "metadata": { "creationTimestamp": null },
            "spec": {
              "containers": [{
                "name": "once",
                "image": "busybox",
                "command": ["echo", "hi"],
                "resources": {},
              }],
              "restartPolicy": "Never",
            },
          },
        },
        "status": {},
      },
    ],
    [
      "create cronjob nightly --image=busybox --schedule='0 3 * * *' -- date",
      "create_cronjob.bin",
      {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": { "name": "nightly", "creationTimestamp": null },
        "spec": {
          "schedule": "0 3 * * *",
          "jobTemplate": {
            "metadata": { "name": "nightly", "creationTimestamp": null },
            "spec": {
              "template": {
                "metadata": { "creationTimestamp": null },
                "spec": {
                  "containers": [{
                    "name": "nightly",
                    "image": "busybox",
                    "command": ["date"],
                    "resources": {},
                  }],
                  "restartPolicy": "OnFailure",
                },
              },
            },
          },
        },
        "status": {},
      },
    ],
  ],
});
