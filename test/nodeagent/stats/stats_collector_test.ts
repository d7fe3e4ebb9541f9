import assert from "node:assert/strict";
import { StatsCollector } from "../../../nodeagent/stats/stats_collector.ts";
import { renderResourceMetrics } from "../../../nodeagent/stats/resource_metrics_text.ts";
import { buildSummary } from "../../../nodeagent/stats/summary.ts";
import type { ContainerStatus } from "../../../nodeagent/runtime/runtime.ts";

/** A procfs fixture: the node files and processes 100 (container) → 101 → 102, and 200. */
async function fakeProc(ticks: number): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "fake-proc-" });
  await Deno.writeTextFile(
    `${root}/stat`,
    `cpu  ${ticks} 0 ${ticks} 5000 0 0 0 0 0 0\nbtime 1700000000\n`,
  );
  await Deno.writeTextFile(
    `${root}/meminfo`,
    "MemTotal:  1000000 kB\nMemFree:  200000 kB\nMemAvailable:  600000 kB\nInactive(file):  100000 kB\n",
  );
  const procs: [number, number, number, number][] = [
    [100, 1, ticks, 4096],
    [101, 100, 50, 1024],
    [102, 101, 25, 512],
    [200, 1, 9999, 99999],
  ];
  for (const [pid, ppid, utime, rssKb] of procs) {
    await Deno.mkdir(`${root}/${pid}`);
    await Deno.writeTextFile(
      `${root}/${pid}/stat`,
      `${pid} (sh) S ${ppid} 0 0 0 -1 0 0 0 0 0 ${utime} 0 0 0 20 0 1 0 500 0 0\n`,
    );
    await Deno.writeTextFile(`${root}/${pid}/status`, `Name:\tsh\nVmRSS:\t${rssKb} kB\n`);
  }
  return root;
}

const RUNNING: ContainerStatus = {
  id: "process://abc",
  name: "main",
  pod: { namespace: "ns", name: "web", uid: "uid-1" },
  state: { running: { startedAt: "2026-11-25T03:00:00Z" } },
  restartCount: 0,
  pid: 100,
};
const EXITED: ContainerStatus = {
  ...RUNNING,
  name: "done",
  pid: undefined,
  state: {
    terminated: { exitCode: 0, reason: "Completed", startedAt: "x", finishedAt: "y" },
  },
};

Deno.test("StatsCollector.collect() measures the node and each running container's process tree", async () => {
  let now = Date.parse("2026-11-25T03:01:00Z");
  const root = await fakeProc(100);
  try {
    const collector = new StatsCollector({
      runtime: { listContainers: () => Promise.resolve([RUNNING, EXITED]) },
      clock: { now: () => now, sleep: () => Promise.resolve() },
      procRoot: root,
    });
    const { current, previous } = await collector.collect();
    assert.equal(previous, undefined);
    assert.equal(current.node.cpuSeconds, 2);
    assert.equal(current.node.startTimeMs, 1700000000_000);
    assert.equal(current.node.memory.workingSetBytes, 700000 * 1024);
    assert.equal(current.pods.length, 1);
    const c = current.pods[0].containers[0];
    assert.equal(c.name, "main");
    assert.equal(c.cpuSeconds, (100 + 50 + 25) / 100);
    assert.equal(c.workingSetBytes, (4096 + 1024 + 512) * 1024);
    assert.equal(c.processCount, 3);
    assert.equal(c.startTimeMs, Date.parse("2026-11-25T03:00:00Z"));

    // Reused within a second; a later collection keeps the earlier one for rates.
    assert.equal((await collector.collect()).current, current);
    await Deno.writeTextFile(
      `${root}/100/stat`,
      `100 (sh) S 1 0 0 0 -1 0 0 0 0 0 200 0 0 0 20 0 1 0 500 0 0\n`,
    );
    now += 10_000;
    const second = await collector.collect();
    assert.equal(second.previous, current);
    const summary = buildSummary("n1", second.current, second.previous) as {
      pods: { containers: { cpu: { usageNanoCores: number; usageCoreNanoSeconds: number } }[] }[];
    };
    // One more core-second over ten seconds: a tenth of a core.
    assert.equal(summary.pods[0].containers[0].cpu.usageNanoCores, 100_000_000);
    assert.equal(summary.pods[0].containers[0].cpu.usageCoreNanoSeconds, 2_750_000_000);

    const text = renderResourceMetrics(second.current);
    assert.match(
      text,
      /^container_cpu_usage_seconds_total\{container="main",namespace="ns",pod="web"\} 2\.75 1795575670000$/m,
    );
    assert.match(
      text,
      /^container_start_time_seconds\{container="main",namespace="ns",pod="web"\} 1\.7955756e\+09 1795575600000$/m,
    );
    assert.match(text, /^node_memory_working_set_bytes 7\.168e\+08 1795575670000$/m);
    assert.match(text, /^# TYPE node_cpu_usage_seconds_total counter$/m);
    assert.match(text, /^resource_scrape_error 0$/m);
    // scrape_error, deprecated in 1.29, is hidden in 1.32.
    assert.doesNotMatch(text, /^scrape_error/m);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("StatsCollector.collect() reports a container whose process is gone as a scrape error", async () => {
  const root = await fakeProc(100);
  try {
    const collector = new StatsCollector({
      runtime: { listContainers: () => Promise.resolve([{ ...RUNNING, pid: 4321 }]) },
      procRoot: root,
    });
    const { current } = await collector.collect();
    assert.equal(current.error, true);
    assert.deepEqual(current.pods, []);
    assert.match(renderResourceMetrics(current), /^resource_scrape_error 1$/m);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
