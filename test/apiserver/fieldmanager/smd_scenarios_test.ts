import assert from "node:assert/strict";
import { loadScenarios, runScenario } from "./smd_scenarios.ts";

/** Scenarios this single-version server cannot run, by reason prefix. */
const SKIP_REASONS = ["version converter", "ReturnInputOnNoop"];

Deno.test("Updater passes the transcribed structured-merge-diff scenarios", async (t) => {
  const all = loadScenarios();
  assert.ok(all.length >= 118, `only ${all.length} scenarios`);
  let passed = 0;
  for (const { file, scenario } of all) {
    await t.step(`${file} ${scenario.test}/${scenario.name}`, () => {
      const r = runScenario(scenario);
      if (r.status === "skip") {
        assert.ok(SKIP_REASONS.some((p) => r.reason.startsWith(p)), r.reason);
        return;
      }
      assert.equal(r.status, "pass", r.status === "fail" ? r.reason : "");
      passed++;
    });
  }
  assert.ok(passed >= 109, `only ${passed} passed`);
});
