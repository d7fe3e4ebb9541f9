import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { parseEvictionThreshold } from "../../../nodeagent/config/eviction_threshold.ts";
import { buildNode } from "../../../nodeagent/register/node_object.ts";
import type { HostReadings } from "../../../nodeagent/status/host_readings.ts";
import { NodeStatusReporter } from "../../../nodeagent/status/node_status_reporter.ts";
import { startTestServer } from "../../support/test_server.ts";

const GI = 1024 ** 3;

function readings(memoryAvailableBytes: number): HostReadings {
  return {
    cpuCount: 2,
    memoryTotalBytes: 8 * GI,
    memoryAvailableBytes,
    pidMax: 100_000,
    processCount: 100,
    rootFs: { capacityBytes: 100 * GI, availableBytes: 50 * GI, inodes: 1e6, inodesFree: 5e5 },
  };
}

function conditions(node: KubeObject): Record<string, string> {
  const cs = (node.status as { conditions: { type: string; status: string }[] }).conditions;
  return Object.fromEntries(cs.map((c) => [c.type, c.status]));
}

Deno.test("NodeStatusReporter.sync() writes on change and every report period", async (t) => {
  const ts = await startTestServer();
  const clock = new FakeClock();
  let host = readings(4 * GI);
  const thresholds = [parseEvictionThreshold("memory.available", "100Mi")];
  const reporter = new NodeStatusReporter({
    client: ts.client,
    nodeName: "n-status",
    clock,
    readHost: () => Promise.resolve(host),
    readyErrors: () => Promise.resolve([]),
    nodeInfo: {
      machineID: "m",
      systemUUID: "s",
      bootID: "b",
      kernelVersion: "6",
      osImage: "Debian",
      containerRuntimeVersion: "process://1",
      kubeletVersion: "v1.32.0",
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: "amd64",
    },
    addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
    port: 10250,
    resources: { maxPods: 110, systemReserved: {}, kubeReserved: {}, evictionHard: thresholds },
    thresholds,
    pressureTransitionPeriodMs: 0,
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 300_000,
  });
  const NODE = { version: "v1", resource: "nodes", name: "n-status" };
  const writes = async () => {
    const n = await ts.client.get<KubeObject>(NODE);
    return Number(n.metadata.resourceVersion);
  };
  try {
    const parts = await reporter.compute();
    const node = await ts.client.create(
      { version: "v1", resource: "nodes" },
      buildNode("n-status", {}, parts),
    );
    reporter.registered(node, parts);

    await t.step("nothing changed: no write", async () => {
      const before = await writes();
      clock.advance(10_000);
      assert.equal(await reporter.sync(), false);
      assert.equal(await writes(), before);
    });

    await t.step("memory pressure: written at once", async () => {
      host = readings(50 * 1024 ** 2);
      clock.advance(10_000);
      assert.equal(await reporter.sync(), true);
      assert.equal(conditions(await ts.client.get<KubeObject>(NODE)).MemoryPressure, "True");
    });

    await t.step("unchanged for the report period: written again", async () => {
      clock.advance(10_000);
      assert.equal(await reporter.sync(), false);
      clock.advance(300_000);
      assert.equal(await reporter.sync(), true);
    });

    await t.step("a Node changed by someone else (409) is re-read and written", async () => {
      const n = await ts.client.get<KubeObject>(NODE);
      n.metadata.labels = { ...n.metadata.labels, touched: "yes" };
      await ts.client.update(NODE, n);
      host = readings(4 * GI);
      clock.advance(10_000);
      assert.equal(await reporter.sync(), true);
      const after = await ts.client.get<KubeObject>(NODE);
      assert.equal(conditions(after).MemoryPressure, "False");
      assert.equal(after.metadata.labels?.touched, "yes");
    });
  } finally {
    await reporter.stop();
    await ts.close();
  }
});
