import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { discoveryV1Messages } from "../../../../shared/codec/protobuf/schema/discovery_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "discovery.k8s.io/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("discoveryV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(discoveryV1Messages)) {
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

Deno.test("discoveryV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from discovery/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
    ["discovery.v1.EndpointSlice", "addressType", 4, true],
    ["discovery.v1.EndpointSlice", "ports", 3, false],
    ["discovery.v1.Endpoint", "nodeName", 6, true],
    ["discovery.v1.Endpoint", "hints", 8, false],
    ["discovery.v1.Endpoint", "deprecatedTopology", 5, false],
    ["discovery.v1.EndpointConditions", "terminating", 3, true],
    ["discovery.v1.EndpointPort", "appProtocol", 4, true],
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind discovery.k8s.io/v1 registers", () => {
  const kinds = [
    "EndpointSlice",
    "EndpointSliceList",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
});

Deno.test("encodeObject() round trips discovery.k8s.io/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("discovery_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});
