import assert from "node:assert/strict";
import { parseEnvAssignment, runPaired } from "../../../scripts/bench/paired.ts";

Deno.test("parseEnvAssignment() takes NAME=VALUE and refuses the rest", async (t) => {
  const cases: [string, Record<string, string> | undefined][] = [
    ["X=1", { X: "1" }],
    ["DENO_V8_FLAGS=--a=b", { DENO_V8_FLAGS: "--a=b" }],
    ["EMPTY=", { EMPTY: "" }],
    ["=1", undefined],
    ["NOEQUALS", undefined],
    ["1X=1", undefined],
    ["A-B=1", undefined],
  ];
  for (const [text, want] of cases) {
    await t.step(text, () => assert.deepEqual(parseEnvAssignment(text), want));
  }
});

Deno.test("runPaired() loads two real servers side by side and reports both", async () => {
  const lines: string[] = [];
  const result = await runPaired({
    envB: { PAIRED_TEST_SWITCH: "1" },
    seconds: 1,
    concurrency: 2,
    rounds: 2,
    warmup: 5,
    log: (line) => lines.push(line),
  });
  assert.equal(result.rounds.length, 2);
  for (const { a, b } of result.rounds) {
    for (const side of [a, b]) {
      assert.equal(side.failed, 0);
      assert.ok(side.createsPerSecond > 0);
      assert.ok(side.cpuMsPerCreate > 0);
    }
  }
  assert.ok(result.cpuRatio > 0 && Number.isFinite(result.cpuRatio));
  assert.ok(result.rateRatio > 0 && Number.isFinite(result.rateRatio));
  assert.equal(lines.filter((l) => l.startsWith("round ")).length, 2);
});
