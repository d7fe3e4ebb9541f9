import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";
import { storageV1Messages } from "../../../../shared/codec/protobuf/schema/storage_v1.ts";

const testdata = new URL("../../../testdata/protobuf/", import.meta.url);
const GV = "storage.k8s.io/v1";

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, testdata)));
}

Deno.test("storageV1Messages resolves every referenced message, with unique field numbers", () => {
  for (const name of Object.keys(storageV1Messages)) {
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

Deno.test("storageV1Messages carries the field numbers and JSON rules of kubernetes/api", async (t) => {
  // [message, json, number, keepZero], read from storage/v1 generated.proto and types.go (v0.32).
  const cases: [string, string, number, boolean][] = [
    ["storage.v1.StorageClass", "volumeBindingMode", 7, true],
    ["storage.v1.StorageClass", "allowedTopologies", 8, false],
    ["storage.v1.CSIDriverSpec", "seLinuxMount", 8, true],
    ["storage.v1.CSIDriverSpec", "tokenRequests", 6, false],
    ["storage.v1.CSINodeDriver", "allocatable", 4, false],
    ["storage.v1.CSIStorageCapacity", "maximumVolumeSize", 5, false],
    ["storage.v1.VolumeAttachmentStatus", "detachError", 4, false],
    ["storage.v1.VolumeAttachmentSource", "inlineVolumeSpec", 2, false],
    ["storage.v1.VolumeNodeResources", "count", 1, true],
  ];
  for (const [message, json, no, keepZero] of cases) {
    await t.step(`${message}.${json}`, () => {
      const f = messageInfo(message)?.fields.find((x) => x.json === json);
      assert.equal(f?.no, no);
      assert.equal(f?.keepZero, keepZero);
    });
  }
});

Deno.test("hasProtobuf() accepts every kind storage.k8s.io/v1 registers", () => {
  const kinds = [
    "StorageClass",
    "StorageClassList",
    "VolumeAttachment",
    "VolumeAttachmentList",
    "CSINode",
    "CSINodeList",
    "CSIDriver",
    "CSIDriverList",
    "CSIStorageCapacity",
    "CSIStorageCapacityList",
    "Status",
    "DeleteOptions",
  ];
  for (const kind of kinds) {
    assert.ok(hasProtobuf(GV, kind), kind);
    assert.ok(messageInfo(protobufMessageName(GV, kind) ?? ""), kind);
  }
});

Deno.test("encodeObject() round trips storage.k8s.io/v1 objects losslessly", async (t) => {
  for (const [i, obj] of readJson("storage_v1.json").entries()) {
    await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
      assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
    });
  }
});
