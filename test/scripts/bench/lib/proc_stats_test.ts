import assert from "node:assert/strict";
import { parseProcStats, readProcStats } from "../../../../scripts/bench/lib/proc_stats.ts";

const STATUS = "Name:\tdeno\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t9\n";

Deno.test("parseProcStats() reads CPU ticks and memory", async (t) => {
  await t.step("plain command name", () => {
    const stat = "1234 (deno) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 1 0 0";
    assert.deepEqual(parseProcStats(stat, STATUS), {
      cpuSeconds: 3,
      rssBytes: 102400 * 1024,
      peakRssBytes: 204800 * 1024,
    });
  });
  await t.step("command name with spaces and parentheses", () => {
    const stat = "1234 (a) b (c) R 1 1234 1234 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 9 0 1 0 0";
    assert.equal(parseProcStats(stat, STATUS).cpuSeconds, 0.1);
  });
  await t.step("garbage throws", () => {
    assert.throws(() => parseProcStats("nonsense", STATUS), /unrecognised/);
    assert.throws(() => parseProcStats("1 (x) S", STATUS), /unrecognised/);
  });
});

Deno.test("readProcStats() reads this process, and nothing for a bad pid", async () => {
  const own = await readProcStats(Deno.pid);
  if (own === undefined) return; // no /proc on this system
  assert.ok(own.cpuSeconds >= 0);
  assert.ok(own.rssBytes > 0);
  assert.ok(own.peakRssBytes >= own.rssBytes);
  await assert.rejects(() => readProcStats(0), RangeError);
  assert.equal(await readProcStats(2 ** 30), undefined);
});
