import assert from "node:assert/strict";
import {
  checkBodyDepth,
  checkJsonTextDepth,
  checkYamlTextDepth,
  MAX_BODY_DEPTH,
} from "../../../apiserver/http/body_depth.ts";
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

const rejects = (fn: () => void) =>
  assert.throws(fn, (e) => e instanceof StatusError && e.code === 400);

Deno.test("checkJsonTextDepth() refuses text nested past the limit and passes the rest", async (t) => {
  const n = 1_000_000;
  await t.step(
    "a million arrays",
    () => rejects(() => checkJsonTextDepth("[".repeat(n) + "]".repeat(n))),
  );
  await t.step(
    "a million objects",
    () => rejects(() => checkJsonTextDepth('{"a":'.repeat(n) + "1" + "}".repeat(n))),
  );
  await t.step("exactly the limit passes", () => {
    checkJsonTextDepth("[".repeat(MAX_BODY_DEPTH) + "]".repeat(MAX_BODY_DEPTH));
  });
  await t.step("brackets inside strings do not count", () => {
    const s = JSON.stringify({ a: "[{".repeat(5000), b: 'x\\"[[[' + "[".repeat(3000) });
    checkJsonTextDepth(s);
  });
  await t.step("many siblings are not depth", () => {
    checkJsonTextDepth(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ i, v: [i] }))));
  });
});

Deno.test("checkYamlTextDepth() refuses text that may nest past the limit and passes real documents", async (t) => {
  const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nx: ";
  await t.step("a million flow sequences", () => {
    rejects(() => checkYamlTextDepth(head + "[".repeat(1_000_000) + "]".repeat(1_000_000)));
  });
  await t.step("half a million flow mappings", () => {
    rejects(() => checkYamlTextDepth(head + "{a: ".repeat(500_000) + "1" + "}".repeat(500_000)));
  });
  await t.step("compact block sequences on one line", () => {
    rejects(() => checkYamlTextDepth(head + "\n  " + "- ".repeat(5000) + "x\n"));
  });
  await t.step("brackets in quoted, block and plain scalars and comments do not count", () => {
    const deep = "[".repeat(3000);
    checkYamlTextDepth(
      `${head}\n  a: '${deep}'\n  b: "${deep}"\n  c: |\n    ${deep}\n    ${deep}\n` +
        `  d: x${deep}\n  # ${deep}\n`,
    );
  });
  await t.step("a large flat document passes", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `  k${i}: [a, {b: c}]`);
    checkYamlTextDepth(`${head}\n${lines.join("\n")}\n`);
  });
  await t.step("JSON read as YAML is counted too", () => {
    rejects(() => checkYamlTextDepth('{"a":'.repeat(5000) + "1" + "}".repeat(5000)));
  });
});
