import assert from "node:assert/strict";
import { applyMergePatch } from "../../../shared/patch/merge_patch.ts";

// RFC 7386, Appendix A.
const CASES: [unknown, unknown, unknown][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

Deno.test("applyMergePatch() passes the examples of RFC 7386 appendix A", async (t) => {
  for (const [i, [target, patch, result]] of CASES.entries()) {
    await t.step(`example ${i + 1}`, () => {
      assert.deepEqual(applyMergePatch(target, patch), result);
    });
  }
});
