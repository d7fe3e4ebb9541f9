import assert from "node:assert/strict";
import { LeaseBackoff, renewInterval, retryWithBackoff } from "../../../nodeagent/lease/backoff.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { eventually } from "../../support/eventually.ts";

Deno.test("LeaseBackoff.next() doubles from 200 ms to a 7 s cap", () => {
  const b = new LeaseBackoff();
  const seq = Array.from({ length: 9 }, () => b.next());
  assert.deepEqual(seq, [200, 400, 800, 1600, 3200, 6400, 7000, 7000, 7000]);
  b.reset();
  assert.equal(b.next(), 200);
});

Deno.test("retryWithBackoff() waits the backoff sequence on the injected clock until success", async () => {
  const clock = new FakeClock();
  let calls = 0;
  const errors: number[] = [];
  const done = retryWithBackoff(() => {
    calls++;
    return calls < 8 ? Promise.reject(new Error("server down")) : Promise.resolve("lease");
  }, { clock, onError: (_e, wait) => errors.push(wait) });
  for (let i = 1; i < 8; i++) {
    await eventually("a pending sleep", () => clock.pending === 1, { intervalMs: 0 });
    clock.advance(clock.sleeps[clock.sleeps.length - 1]);
  }
  assert.equal(await done, "lease");
  assert.equal(calls, 8);
  assert.deepEqual(clock.sleeps, [200, 400, 800, 1600, 3200, 6400, 7000]);
  assert.deepEqual(errors, clock.sleeps);
});

Deno.test("retryWithBackoff() stops when its signal aborts", async () => {
  const clock = new FakeClock();
  const ac = new AbortController();
  const done = retryWithBackoff(() => Promise.reject(new Error("down")), {
    clock,
    signal: ac.signal,
  });
  await eventually("a pending sleep", () => clock.pending === 1, { intervalMs: 0 });
  ac.abort();
  assert.equal(await done, undefined);
  assert.equal(clock.pending, 0);
});

Deno.test("renewInterval() is a quarter of the lease duration plus up to 4 % jitter", () => {
  assert.equal(renewInterval(40, () => 0), 10_000);
  assert.equal(renewInterval(40, () => 1), 10_400);
});
