import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { parseStoredValue } from "../../../../apiserver/registry/generic/stored_value.ts";

Deno.test("parseStoredValue() returns the writer's object when the change carries one", () => {
  const obj: KubeObject = { metadata: { name: "w", uid: "u-writing" } };
  const value = JSON.stringify(obj);
  assert.equal(parseStoredValue(value, obj), obj, "listeners get the store's object, unparsed");
  const parsed = parseStoredValue(value);
  assert.notEqual(parsed, obj, "without it, readers get a parse");
  assert.deepEqual(parsed, obj);
});
