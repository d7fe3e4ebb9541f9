import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { appsV1Messages } from "../../../../shared/codec/protobuf/schema/apps_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "apps/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("appsV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(appsV1Messages)) {
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

Deno.test("appsV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from apps/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
    ["apps.v1.DeploymentSpec", "progressDeadlineSeconds", 9, true],
    ["apps.v1.DeploymentSpec", "paused", 7, false],
    ["apps.v1.DeploymentStatus", "readyReplicas", 7, false],
    ["apps.v1.DeploymentStatus", "collisionCount", 8, true],
    ["apps.v1.DeploymentCondition", "lastUpdateTime", 6, false],
    ["apps.v1.StatefulSetSpec", "ordinals", 11, false],
    ["apps.v1.StatefulSetSpec", "serviceName", 5, true],
    ["apps.v1.StatefulSetStatus", "availableReplicas", 11, true],
    ["apps.v1.DaemonSetSpec", "revisionHistoryLimit", 6, true],
    ["apps.v1.DaemonSetStatus", "numberMisscheduled", 2, true],
    ["apps.v1.ReplicaSetSpec", "minReadySeconds", 4, false],
    ["apps.v1.ControllerRevision", "revision", 3, true],
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind apps/v1 registers", () => {
  const kinds = [
    "Deployment",
    "DeploymentList",
    "StatefulSet",
    "StatefulSetList",
    "DaemonSet",
    "DaemonSetList",
    "ReplicaSet",
    "ReplicaSetList",
    "ControllerRevision",
    "ControllerRevisionList",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
});

Deno.test("encodeObject() round trips apps/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("apps_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});

Deno.test("decodeObject() decodes what kubectl 1.32 sends for apps/v1 create commands", async (t) => {
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  const cases: [string, string, Record<string, unknown>][] = [
    [
      "create deployment web --image=nginx:1.27 --replicas=3 --port=80",
      "create_deployment.bin",
      {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": "web", "creationTimestamp": null, "labels": { "app": "web" } },
        "spec": {
          "replicas": 3,
          "selector": { "matchLabels": { "app": "web" } },
          "template": {
            "metadata": { "creationTimestamp": null, "labels": { "app": "web" } },
            "spec": {
              "containers": [{
                "name": "nginx",
                "image": "nginx:1.27",
                "ports": [{ "containerPort": 80 }],
                "resources": {},
              }],
            },
          },
          "strategy": {},
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
