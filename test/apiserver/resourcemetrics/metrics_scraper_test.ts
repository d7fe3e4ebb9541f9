import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isScraped, MetricsScraper } from "../../../apiserver/resourcemetrics/metrics_scraper.ts";
import { MetricsStorage } from "../../../apiserver/resourcemetrics/metrics_storage.ts";

function node(name: string, ready: boolean, port = 10250): KubeObject {
  return {
    metadata: { name },
    status: {
      conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
      addresses: [{ type: "Hostname", address: name }, { type: "InternalIP", address: "10.0.0.7" }],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
    },
  };
}

Deno.test("isScraped() holds for a Ready node that publishes its agent's port", () => {
  assert.equal(isScraped(node("a", true, 11000)), true);
  assert.equal(isScraped(node("a", true, 0)), false);
  assert.equal(isScraped(node("a", false)), false);
  assert.equal(isScraped({ metadata: { name: "x" } }), false);
});

Deno.test("MetricsScraper.scrapeOnce() scrapes Ready nodes, stamps samples with the injected clock, skips none", async () => {
  let now = 1_700_000_000_000;
  let nodes: KubeObject[] = [];
  const calls: string[] = [];
  let cpu = 10;
  const storage = new MetricsStorage(15_000);
  const scraper = new MetricsScraper({
    listNodes: () => Promise.resolve(nodes),
    get: (n, path) => {
      calls.push(`${n.metadata.name}${path}`);
      return Promise.resolve(
        `node_cpu_usage_seconds_total ${cpu}\nnode_memory_working_set_bytes 1048576\n`,
      );
    },
    storage,
    resolutionMs: 15_000,
    clock: { now: () => now },
  });
  await scraper.scrapeOnce();
  assert.deepEqual(calls, [], "no nodes, no scraping");
  nodes = [node("ready", true), node("notready", false)];
  await scraper.scrapeOnce();
  now += 15_000;
  cpu = 13;
  await scraper.scrapeOnce();
  assert.deepEqual(calls, ["ready/metrics/resource", "ready/metrics/resource"]);
  const u = storage.nodeUsage("ready")!;
  assert.equal(u.cpuNanoCores, 200_000_000);
  assert.equal(u.windowMs, 15_000);
  assert.equal(u.timestampMs, now);
  assert.equal(storage.nodeUsage("notready"), undefined);
});
