import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { cachedObjectOf } from "../../../apiserver/watch/cached_object.ts";
import { parseStoredValue } from "../../../apiserver/registry/generic/stored_value.ts";

const CODEC = {
  apiVersion: "v1",
  kind: "ConfigMap",
  fieldsOf: (obj: KubeObject) => ({ "metadata.name": obj.metadata.name ?? "" }),
};

Deno.test("parseStoredValue() shares one parse of a value between readers", () => {
  const value = JSON.stringify({ metadata: { name: "a", uid: "u1" }, data: { k: "v" } });
  const first = parseStoredValue(value);
  assert.equal(parseStoredValue(value), first);
  assert.equal(first.metadata.uid, "u1");
  // An equal text committed later (a separate string) still parses to the same content.
  assert.deepEqual(parseStoredValue(JSON.parse(JSON.stringify(value))), first);
  assert.throws(() => parseStoredValue("{not json"), SyntaxError);
});

Deno.test("cachedObjectOf() stamps apiVersion, kind and resourceVersion on a copy of the shared parse", async (t) => {
  const value = JSON.stringify({ metadata: { name: "b", labels: { app: "x" } } });
  const shared = parseStoredValue(value);
  await t.step("at the change's revision", () => {
    const obj = cachedObjectOf(CODEC, "/registry/configmaps/ns/b", value, 7);
    assert.deepEqual(JSON.parse(obj.json), {
      metadata: { name: "b", labels: { app: "x" }, resourceVersion: "7" },
      apiVersion: "v1",
      kind: "ConfigMap",
    });
    assert.deepEqual(obj.labels, { app: "x" });
    assert.deepEqual(obj.fields, { "metadata.name": "b" });
    assert.equal(shared.metadata.uid, undefined, "readers of the shared parse see no uid added");
    assert.equal(shared.metadata.resourceVersion, undefined, "nor a resourceVersion");
    assert.equal(shared.kind, undefined);
  });
  await t.step("the same text again (a deletion's last value) at a later revision", () => {
    const obj = cachedObjectOf(CODEC, "/registry/configmaps/ns/b", value, 9);
    assert.equal(JSON.parse(obj.json).metadata.resourceVersion, "9");
  });
  await t.step("a value that is not an object", () => {
    assert.throws(() => cachedObjectOf(CODEC, "/k", "null", 1), TypeError);
    assert.throws(() => cachedObjectOf(CODEC, "/k", "[1]", 1), TypeError);
  });
});
