import assert from "node:assert/strict";
import {
  nodeMemory,
  parseBootTime,
  parseCpuBusyTicks,
  parsePidStat,
  parseStatusRss,
  type PidStat,
  processTree,
  treeCpuSeconds,
} from "../../../nodeagent/stats/proc_parse.ts";

const PROC_STAT = `cpu  10132153 290696 3084719 46828483 16683 0 25195 7 0 0
cpu0 1393280 32966 572056 13366987 6950 0 17212 0 0 0
intr 1462898 0 0
ctxt 123
btime 1700000000
processes 2000
`;

Deno.test("parseCpuBusyTicks() sums user, nice, system, irq, softirq and steal", () => {
  assert.equal(parseCpuBusyTicks(PROC_STAT), 10132153 + 290696 + 3084719 + 0 + 25195 + 7);
  // An old kernel with only the first four fields.
  assert.equal(parseCpuBusyTicks("cpu 1 2 3 4\n"), 6);
  assert.throws(() => parseCpuBusyTicks("intr 1\n"), SyntaxError);
});

Deno.test("parseBootTime() reads btime", () => {
  assert.equal(parseBootTime(PROC_STAT), 1700000000);
  assert.equal(parseBootTime("cpu 1 2 3 4\n"), undefined);
});

Deno.test("parsePidStat() counts fields after the last parenthesis of the command name", () => {
  const line =
    "4242 (my (odd) cmd) S 4200 4242 4200 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 1 0 98765 1000000 300 18446744073709551615\n";
  assert.deepEqual(parsePidStat(line), {
    pid: 4242,
    ppid: 4200,
    utime: 250,
    stime: 50,
    cutime: 7,
    cstime: 3,
    starttime: 98765,
  });
  assert.throws(() => parsePidStat("garbage"), SyntaxError);
});

Deno.test("parseStatusRss() reads VmRSS in bytes", () => {
  assert.equal(
    parseStatusRss("Name:\tpython3\nVmRSS:\t   12345 kB\nRssAnon:\t 1 kB\n"),
    12345 * 1024,
  );
  assert.equal(parseStatusRss("Name:\tkthreadd\n"), 0);
});

Deno.test("nodeMemory() computes usage and the working set without inactive file pages", () => {
  const kb = 1024;
  const m = nodeMemory({
    MemTotal: 8000 * kb,
    MemFree: 1000 * kb,
    MemAvailable: 5000 * kb,
    "Inactive(file)": 2500 * kb,
  });
  assert.deepEqual(m, {
    availableBytes: 5000 * kb,
    usageBytes: 7000 * kb,
    workingSetBytes: 4500 * kb,
  });
  assert.equal(nodeMemory({ MemTotal: 10, MemFree: 2, "Inactive(file)": 20 }).workingSetBytes, 0);
});

function p(pid: number, ppid: number, ticks: number, reaped = 0): PidStat {
  return { pid, ppid, utime: ticks, stime: 0, cutime: reaped, cstime: 0, starttime: 0 };
}

Deno.test("processTree() and treeCpuSeconds() cover a process, its descendants and reaped children", () => {
  const table = new Map([
    [1, p(1, 0, 1000)],
    [10, p(10, 1, 100, 50)],
    [11, p(11, 10, 20)],
    [12, p(12, 11, 30)],
    [20, p(20, 1, 999)],
  ]);
  const tree = processTree(table, 10);
  assert.deepEqual(tree.map((x) => x.pid), [10, 11, 12]);
  assert.equal(treeCpuSeconds(tree), (100 + 50 + 20 + 30) / 100);
  assert.deepEqual(processTree(table, 99), []);
});
