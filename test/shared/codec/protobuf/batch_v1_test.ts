import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { batchV1Messages } from "../../../../shared/codec/protobuf/schema/batch_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "batch/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("batchV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(batchV1Messages)) {
    const info = messageInfo(name);
    assert.ok(info, name);
    assert.equal(new Set(info.fields.map((f) => f.no)).size, info.fields.length, name);
    assert.equal(new Set(info.fields.map((f) => f.json)).size, info.fields.length, name);
    for (const f of info.fields) {
      if (f.kind !== "message") continue;
      const ref = f.message ?? "";
      assert.ok(SPECIAL_MESSAGES.has(ref) || messageInfo(ref), `${name}.${f.json} -> ${ref}`);
    }
  }
});

Deno.test("batchV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from batch/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
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
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind batch/v1 registers", () => {
  const kinds = [
    "Job",
    "JobList",
    "CronJob",
    "CronJobList",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
});

Deno.test("encodeObject() round trips batch/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("batch_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});

Deno.test("decodeObject() decodes what kubectl 1.32 sends for batch/v1 create commands", async (t) => {
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  const cases: [string, string, Record<string, unknown>][] = [
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
  ];
  for (const [command, file, expected] of cases) {
    await t.step(command, () => {
      const obj = decodeObject(Deno.readFileSync(new URL(`kubectl/${file}`, testdata)));
      assert.deepStrictEqual(obj, expected);
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), expected);
    });
  }
});
