import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "../../../nodeagent/config/duration.ts";

Deno.test("parseDuration() reads Go durations", async (t) => {
  const cases: [string, number][] = [
    ["10s", 10_000],
    ["5m0s", 300_000],
    ["1h30m", 5_400_000],
    [
      "200ms",
      200,
    ],
    ["1.5s", 1500],
    ["0", 0],
    ["-2s", -2000],
  ];
  for (const [text, ms] of cases) {
    await t.step(text, () => assert.equal(parseDuration(text), ms));
  }
  await t.step("rejects garbage", () => assert.throws(() => parseDuration("10"), SyntaxError));
});

Deno.test("formatDuration() writes Go durations", () => {
  assert.equal(formatDuration(300_000), "5m0s");
  assert.equal(formatDuration(200), "200ms");
  assert.equal(formatDuration(3_600_000), "1h0m0s");
});
