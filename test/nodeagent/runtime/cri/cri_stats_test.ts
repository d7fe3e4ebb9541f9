import assert from "node:assert/strict";
import { CriRuntime } from "../../../../nodeagent/runtime/cri/cri_runtime.ts";
import { criStatsReadings } from "../../../../nodeagent/runtime/cri/cri_stats.ts";
import { StatsCollector } from "../../../../nodeagent/stats/stats_collector.ts";
import { startFakeCriServer } from "./_fake_cri_server.ts";

const NS = 1_700_000_000_000_000_000n;

Deno.test("criStatsReadings() converts nanoseconds and skips stats without an id or a time", () => {
  assert.deepEqual(
    criStatsReadings([
      {
        attributes: { id: "c1" },
        cpu: { timestamp: String(NS), usageCoreNanoSeconds: { value: "2500000000" } },
        memory: {
          timestamp: String(NS + 1_000_000n),
          workingSetBytes: { value: "4096" },
          rssBytes: { value: "2048" },
        },
      },
      { attributes: { id: "c2" }, cpu: { timestamp: String(NS) } },
      { attributes: {}, cpu: { timestamp: String(NS) } },
      { attributes: { id: "c3" } },
    ]),
    [
      {
        id: "c1",
        timestampMs: 1_700_000_000_001,
        cpuSeconds: 2.5,
        workingSetBytes: 4096,
        rssBytes: 2048,
      },
      { id: "c2", timestampMs: 1_700_000_000_000 },
    ],
  );
});

Deno.test("CriRuntime.containerStats() and the collector use ListContainerStats for CRI containers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cri-stats-" });
  const fake = await startFakeCriServer(dir);
  const rt = new CriRuntime(`unix://${fake.socketPath}`);
  try {
    fake.state.sandboxes.push({
      id: "sb1",
      metadata: { name: "web", uid: "uid-1", namespace: "default", attempt: 0 },
      state: "SANDBOX_READY",
    });
    fake.state.containers.push({
      id: "c-run",
      podSandboxId: "sb1",
      metadata: { name: "main", attempt: 0 },
      state: "CONTAINER_RUNNING",
      startedAt: String(NS),
      labels: { "io.kubernetes.container.name": "main", "io.kubernetes.pod.uid": "uid-1" },
    });
    fake.state.stats = [{
      attributes: { id: "c-run", metadata: { name: "main" } },
      cpu: { timestamp: String(NS), usageCoreNanoSeconds: { value: "1500000000" } },
      memory: { timestamp: String(NS), workingSetBytes: { value: "8388608" } },
    }];
    assert.deepEqual(await rt.containerStats(), [{
      id: "c-run",
      timestampMs: 1_700_000_000_000,
      cpuSeconds: 1.5,
      workingSetBytes: 8388608,
    }]);
    const { current } = await new StatsCollector({ runtime: rt }).collect();
    assert.equal(current.error, false);
    assert.deepEqual(current.pods.map((p) => [p.namespace, p.name, p.uid]), [
      ["default", "web", "uid-1"],
    ]);
    const c = current.pods[0].containers[0];
    assert.equal(c.name, "main");
    assert.equal(c.cpuSeconds, 1.5);
    assert.equal(c.workingSetBytes, 8388608);
    assert.equal(c.timestampMs, 1_700_000_000_000);
    assert.equal(c.startTimeMs, 1_700_000_000_000);

    // A runtime that cannot answer leaves the node's figures and flags a scrape error.
    fake.state.fail.ListContainerStats = "stats unavailable";
    const failed = (await new StatsCollector({ runtime: rt }).collect()).current;
    assert.equal(failed.error, true);
    assert.deepEqual(failed.pods, []);
    assert.ok(failed.node.memory.workingSetBytes > 0);
  } finally {
    await rt.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
