import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { policyV1Messages } from "../../../../shared/codec/protobuf/schema/policy_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "policy/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("policyV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(policyV1Messages)) {
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

Deno.test("policyV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from policy/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
    ["policy.v1.PodDisruptionBudgetSpec", "maxUnavailable", 3, false],
    ["policy.v1.PodDisruptionBudgetSpec", "unhealthyPodEvictionPolicy", 4, true],
    ["policy.v1.PodDisruptionBudgetStatus", "disruptedPods", 2, false],
    ["policy.v1.PodDisruptionBudgetStatus", "expectedPods", 6, true],
    ["policy.v1.PodDisruptionBudgetStatus", "conditions", 7, false],
    ["policy.v1.Eviction", "deleteOptions", 2, false],
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind policy/v1 registers", () => {
  const kinds = [
    "PodDisruptionBudget",
    "PodDisruptionBudgetList",
    "Eviction",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
});

Deno.test("encodeObject() round trips policy/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("policy_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});

Deno.test("decodeObject() decodes what kubectl 1.32 sends for policy/v1 create commands", async (t) => {
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  const cases: [string, string, Record<string, unknown>][] = [
    [
      "create poddisruptionbudget pdb --selector=app=web --min-available=50%",
      "create_pdb.bin",
      {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": { "name": "pdb", "creationTimestamp": null },
        "spec": { "minAvailable": "50%", "selector": { "matchLabels": { "app": "web" } } },
        "status": {
          "disruptionsAllowed": 0,
          "currentHealthy": 0,
          "desiredHealthy": 0,
          "expectedPods": 0,
        },
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
