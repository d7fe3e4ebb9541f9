import assert from "node:assert/strict";
import { runPool } from "../../../../scripts/bench/lib/run_pool.ts";

Deno.test("runPool() runs every operation once within the concurrency", async () => {
  const seen: number[] = [];
  let inFlight = 0;
  let most = 0;
  const result = await runPool(
    { count: 50, concurrency: 4, capMs: 60_000, offset: 100 },
    async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      seen.push(i);
      inFlight--;
    },
  );
  assert.equal(result.done, 50);
  assert.equal(result.failed, 0);
  assert.equal(result.capped, false);
  assert.equal(result.latenciesMs.length, 50);
  assert.deepEqual(seen.sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => 100 + i));
  assert.ok(most <= 4);
});

Deno.test("runPool() counts failures and keeps the first error", async () => {
  const result = await runPool({ count: 10, concurrency: 3, capMs: 60_000 }, (i) => {
    if (i % 2 === 1) return Promise.reject(new Error(`op ${i}`));
    return Promise.resolve();
  });
  assert.equal(result.done, 5);
  assert.equal(result.failed, 5);
  assert.match(String(result.firstError), /op \d/);
});

Deno.test("runPool() stops starting operations at the cap", async () => {
  let calls = 0;
  const result = await runPool({ count: 1_000_000, concurrency: 2, capMs: 0 }, async () => {
    calls++;
    await new Promise((r) => setTimeout(r, 1));
  });
  assert.equal(result.capped, true);
  assert.ok(calls < 1_000_000);
  assert.equal(result.done, calls);
});

Deno.test("runPool() rejects bad options", async (t) => {
  const cases: Array<[string, { count: number; concurrency: number; capMs: number }]> = [
    ["negative count", { count: -1, concurrency: 1, capMs: 1 }],
    ["zero concurrency", { count: 1, concurrency: 0, capMs: 1 }],
    ["fractional cap", { count: 1, concurrency: 1, capMs: 0.5 }],
  ];
  for (const [name, opts] of cases) {
    await t.step(name, async () => {
      await assert.rejects(() => runPool(opts, () => Promise.resolve()), RangeError);
    });
  }
});
