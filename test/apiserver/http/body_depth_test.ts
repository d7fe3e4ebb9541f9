import assert from "node:assert/strict";
import { checkBodyDepth, MAX_BODY_DEPTH } from "../../../apiserver/http/body_depth.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const nestObjects = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const nestArrays = (depth: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
};

Deno.test("checkBodyDepth() takes bodies up to the limit and rejects deeper ones", async (t) => {
  const cases: Array<[string, unknown, boolean]> = [
    ["a scalar", "x", true],
    ["null", null, true],
    ["a flat object", { a: 1, b: "x", c: null }, true],
    ["objects at the limit", nestObjects(MAX_BODY_DEPTH), true],
    ["arrays at the limit", nestArrays(MAX_BODY_DEPTH), true],
    ["objects one past the limit", nestObjects(MAX_BODY_DEPTH + 1), false],
    ["arrays one past the limit", nestArrays(MAX_BODY_DEPTH + 1), false],
    ["mixed, far past the limit", { spec: [nestObjects(200_000)] }, false],
  ];
  for (const [name, value, ok] of cases) {
    await t.step(name, () => {
      if (ok) return checkBodyDepth(value);
      assert.throws(() => checkBodyDepth(value), (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 400);
        assert.equal(err.reason, "BadRequest");
        return true;
      });
    });
  }
});
