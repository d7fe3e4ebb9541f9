import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  parseStoredValue,
  writingValue,
} from "../../../../apiserver/registry/generic/stored_value.ts";

Deno.test("writingValue() lends the written object to parseStoredValue() until the write settles", async () => {
  const obj: KubeObject = { metadata: { name: "w", uid: "u-writing" } };
  const value = JSON.stringify(obj);
  let during: KubeObject | undefined;
  const result = await writingValue(value, obj, (v) => {
    during = parseStoredValue(v);
    return Promise.resolve(7);
  });
  assert.equal(result, 7);
  assert.equal(during, obj, "listeners of the commit get the store's object, unparsed");
  const after = parseStoredValue(value);
  assert.notEqual(after, obj, "later readers get a parse of their own");
  assert.deepEqual(after, obj);
});

Deno.test("writingValue() stops lending the object when the write fails", async () => {
  const obj: KubeObject = { metadata: { name: "f", uid: "u-failing" } };
  const value = JSON.stringify(obj);
  await assert.rejects(writingValue(value, obj, () => Promise.reject(new Error("conflict"))));
  assert.notEqual(parseStoredValue(value), obj);
});
