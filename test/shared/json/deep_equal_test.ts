import assert from "node:assert/strict";
import { deepEqual } from "../../../shared/json/deep_equal.ts";

Deno.test("deepEqual() compares scalars, lists in order and maps in any key order", () => {
  assert.equal(deepEqual(1, 1), true);
  assert.equal(deepEqual("a", "a"), true);
  assert.equal(deepEqual(null, null), true);
  assert.equal(deepEqual(1, "1"), false);
  assert.equal(deepEqual(0, false), false);
  assert.equal(deepEqual(null, {}), false);
  assert.equal(deepEqual([1, [2, 3]], [1, [2, 3]]), true);
  assert.equal(deepEqual([1, 2], [2, 1]), false);
  assert.equal(deepEqual([1], [1, 1]), false);
  assert.equal(deepEqual([], {}), false);
  assert.equal(deepEqual({ a: 1, b: { c: [true] } }, { b: { c: [true] }, a: 1 }), true);
  assert.equal(deepEqual({ a: 1 }, { a: 2 }), false);
  assert.equal(deepEqual({ a: 1 }, { b: 1 }), false);
  assert.equal(deepEqual({ a: 1 }, { a: 1, b: 2 }), false);
});

Deno.test("deepEqual() treats a member whose value is undefined as absent", () => {
  assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(deepEqual({ a: 1 }, { a: 1, b: undefined }), true);
  assert.equal(deepEqual({ a: undefined }, { b: undefined }), true);
  assert.equal(deepEqual({ a: undefined, c: 1 }, { b: 1, c: 1 }), false);
});

Deno.test("deepEqual() does not take inherited properties for members", () => {
  assert.equal(deepEqual({ constructor: 1 }, { other: 1 }), false);
  assert.equal(deepEqual({ toString: 1 }, { toString: 1 }), true);
});
