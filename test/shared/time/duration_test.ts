import assert from "node:assert/strict";
import {
  DurationParseError,
  formatDuration,
  parseDuration,
  parseDurationMs,
} from "../../../shared/time/duration.ts";

const S = 1_000_000_000n;

Deno.test("parseDuration() reads Go durations as time.ParseDuration does", async (t) => {
  const cases: [string, bigint][] = [
    ["0", 0n],
    ["-0", 0n],
    ["+0", 0n],
    ["5s", 5n * S],
    ["-5s", -5n * S],
    ["+5s", 5n * S],
    ["5.0s", 5n * S],
    ["5.6s", 5_600_000_000n],
    ["5.s", 5n * S],
    [".5s", 500_000_000n],
    ["1.004s", 1_004_000_000n],
    ["100.00100s", 100_001_000_000n],
    ["10ns", 10n],
    ["11us", 11_000n],
    ["12\u00b5s", 12_000n],
    ["12\u03bcs", 12_000n],
    ["13ms", 13_000_000n],
    ["15m", 900n * S],
    ["16h", 57_600n * S],
    ["3h30m", 12_600n * S],
    ["10.5s4m", 250_500_000_000n],
    ["-2m3.4s", -123_400_000_000n],
    ["1h2m3s4ms5us6ns", 3_723_004_005_006n],
    ["39h9m14.425s", 140_954_425_000_000n],
    ["0.3333333333333333333h", 1_200n * S],
    ["9223372036854775807ns", 9_223_372_036_854_775_807n],
    ["9223372036854775.807us", 9_223_372_036_854_775_807n],
    ["-9223372036854775808ns", -9_223_372_036_854_775_808n],
    ["-2562047h47m16.854775808s", -9_223_372_036_854_775_808n],
    ["0.100000000000000000000h", 360n * S],
    ["0.830103483285477580700h", 2_988_372_539_827n],
  ];
  for (const [text, ns] of cases) {
    await t.step(text, () => assert.equal(parseDuration(text), ns));
  }
});

Deno.test("parseDuration() rejects what Go rejects, with Go's messages", async (t) => {
  const cases: [string, string][] = [
    ["", 'time: invalid duration ""'],
    ["3", 'time: missing unit in duration "3"'],
    ["10", 'time: missing unit in duration "10"'],
    ["-", 'time: invalid duration "-"'],
    ["s", 'time: invalid duration "s"'],
    [".", 'time: invalid duration "."'],
    ["-.", 'time: invalid duration "-."'],
    [".s", 'time: invalid duration ".s"'],
    ["+.s", 'time: invalid duration "+.s"'],
    ["1d", 'time: unknown unit "d" in duration "1d"'],
    ["5x", 'time: unknown unit "x" in duration "5x"'],
    [" 5s", 'time: invalid duration " 5s"'],
    ["5s ", 'time: unknown unit "s " in duration "5s "'],
    ["\u00e9", 'time: invalid duration "\\xc3\\xa9"'],
    ["9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'],
    ["9223372036854775.808us", 'time: invalid duration "9223372036854775.808us"'],
    ["9223372036854ms775us808ns", 'time: invalid duration "9223372036854ms775us808ns"'],
    ["-9223372036854775809ns", 'time: invalid duration "-9223372036854775809ns"'],
    ["3000000h", 'time: invalid duration "3000000h"'],
  ];
  for (const [text, message] of cases) {
    await t.step(JSON.stringify(text), () => {
      assert.throws(() => parseDuration(text), (e: unknown) => {
        assert.ok(e instanceof DurationParseError && e instanceof SyntaxError);
        assert.equal(e.message, message);
        return true;
      });
    });
  }
});

Deno.test("parseDurationMs() reads Go durations in milliseconds", async (t) => {
  const cases: [string, number][] = [
    ["10s", 10_000],
    ["5m0s", 300_000],
    ["1h30m", 5_400_000],
    ["200ms", 200],
    ["1.5s", 1500],
    ["0", 0],
    ["-2s", -2000],
    ["+5s", 5000],
    ["1.s", 1000],
    ["1500us", 1.5],
  ];
  for (const [text, ms] of cases) {
    await t.step(text, () => assert.equal(parseDurationMs(text), ms));
  }
  await t.step("rejects garbage", () => assert.throws(() => parseDurationMs("10"), SyntaxError));
});

Deno.test("formatDuration() writes Go durations", () => {
  assert.equal(formatDuration(300_000), "5m0s");
  assert.equal(formatDuration(200), "200ms");
  assert.equal(formatDuration(3_600_000), "1h0m0s");
});

Deno.test("formatDuration() writes what Go's Duration.String() writes", async (t) => {
  const cases: [number, string][] = [
    [0, "0s"],
    [0.000001, "1ns"],
    [0.0011, "1.1\u00b5s"],
    [2.2, "2.2ms"],
    [3300, "3.3s"],
    [-240_000 - 4400, "-4m4.4s"],
    [80_000, "1m20s"],
    [18_305_000, "5h5m5s"],
    [1.5e-3, "1.5\u00b5s"],
  ];
  for (const [ms, want] of cases) await t.step(want, () => assert.equal(formatDuration(ms), want));
});
