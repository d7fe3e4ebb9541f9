import assert from "node:assert/strict";
import { median, percentile } from "../../../../scripts/bench/lib/stats.ts";

Deno.test("percentile() picks the nearest-rank value", async (t) => {
  const cases: Array<[string, number[], number, number]> = [
    ["p50 of 1..10", [10, 9, 8, 7, 6, 5, 4, 3, 2, 1], 50, 5],
    ["p99 of 1..10", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99, 10],
    ["p100 is the max", [3, 1, 2], 100, 3],
    ["tiny p is the min", [3, 1, 2], 0.1, 1],
    ["single value", [7], 50, 7],
  ];
  for (const [name, values, p, want] of cases) {
    await t.step(name, () => assert.equal(percentile(values, p), want));
  }
  await t.step("empty is NaN", () => assert.ok(Number.isNaN(percentile([], 50))));
  await t.step("p out of range throws", () => {
    assert.throws(() => percentile([1], 0), RangeError);
    assert.throws(() => percentile([1], 101), RangeError);
  });
  await t.step("does not reorder its input", () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    assert.deepEqual(values, [3, 1, 2]);
  });
});

Deno.test("median() averages the middle pair and skips NaN", async (t) => {
  const cases: Array<[string, number[], number]> = [
    ["odd count", [5, 1, 3], 3],
    ["even count", [4, 1, 3, 2], 2.5],
    ["NaN ignored", [NaN, 2, 4, NaN, 6], 4],
  ];
  for (const [name, values, want] of cases) {
    await t.step(name, () => assert.equal(median(values), want));
  }
  await t.step("nothing left is NaN", () => assert.ok(Number.isNaN(median([NaN]))));
});
