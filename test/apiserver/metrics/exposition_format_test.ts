import assert from "node:assert/strict";
import { escapeHelp, escapeLabelValue, formatFloat } from "../../../apiserver/metrics/mod.ts";

Deno.test("formatFloat() writes numbers as Go's FormatFloat(v, 'g', -1, 64)", async (t) => {
  const cases: [number, string][] = [
    [0, "0"],
    [1, "1"],
    [-1, "-1"],
    [42, "42"],
    [0.005, "0.005"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [0.000015, "1.5e-05"],
    [100000, "100000"],
    [999999, "999999"],
    [-999999, "-999999"],
    [999999.5, "999999.5"],
    [1000000, "1e+06"],
    [-1000000, "-1e+06"],
    [1234567, "1.234567e+06"],
    [1e9, "1e+09"],
    [1.25, "1.25"],
    [1e21, "1e+21"],
    [1e100, "1e+100"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
    [NaN, "NaN"],
  ];
  for (const [v, want] of cases) {
    await t.step(String(v), () => assert.equal(formatFloat(v), want));
  }
});

Deno.test("escapeHelp() and escapeLabelValue() escape as the text format requires", async (t) => {
  const cases: [string, string, string][] = [
    ["plain", "plain", "plain"],
    ["a\\b", "a\\\\b", "a\\\\b"],
    ["line1\nline2", "line1\\nline2", "line1\\nline2"],
    ['say "hi"', 'say "hi"', 'say \\"hi\\"'],
  ];
  for (const [input, help, label] of cases) {
    await t.step(JSON.stringify(input), () => {
      assert.equal(escapeHelp(input), help);
      assert.equal(escapeLabelValue(input), label);
    });
  }
});
