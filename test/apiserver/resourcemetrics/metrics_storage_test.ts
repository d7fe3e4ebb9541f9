import assert from "node:assert/strict";
import type {
  MetricsBatch,
  MetricsPoint,
} from "../../../apiserver/resourcemetrics/decode_resource_metrics.ts";
import {
  MetricsStorage,
  resourceUsage,
} from "../../../apiserver/resourcemetrics/metrics_storage.ts";

const T0 = 1_700_000_000_000;

function point(
  timestampMs: number,
  cpuSeconds: number,
  memoryBytes = 1000,
  startTimeMs = 1,
): MetricsPoint {
  return { timestampMs, cpuSeconds, memoryBytes, startTimeMs };
}

function round(
  node: MetricsPoint,
  containers: Record<string, MetricsPoint>,
): Map<string, MetricsBatch> {
  return new Map([["n1", {
    node,
    pods: new Map([["ns/web", new Map(Object.entries(containers))]]),
  }]]);
}

Deno.test("resourceUsage() is the CPU rate over the window between two points and the last memory", () => {
  const u = resourceUsage(point(T0 + 15_000, 10.5, 4096), point(T0, 9))!;
  assert.deepEqual(u, {
    cpuNanoCores: 100_000_000,
    memoryBytes: 4096,
    timestampMs: T0 + 15_000,
    windowMs: 15_000,
  });
  assert.equal(resourceUsage(point(T0 + 1, 1), point(T0, 2)), undefined, "CPU went down");
  assert.equal(resourceUsage(point(T0, 2), point(T0, 1)), undefined, "no window");
  assert.equal(
    resourceUsage(point(T0 + 1, 2, 1, 0), point(T0, 1, 1, 5)),
    undefined,
    "start went back",
  );
});

Deno.test("MetricsStorage reports usage once two rounds are stored", () => {
  const s = new MetricsStorage(15_000);
  s.store(round(point(T0, 100), { app: point(T0, 1) }));
  assert.equal(s.nodeUsage("n1"), undefined);
  assert.equal(s.podUsage("ns", "web"), undefined);
  s.store(round(point(T0 + 15_000, 106, 2048), { app: point(T0 + 15_000, 1.3, 512) }));
  assert.equal(s.nodeUsage("n1")!.cpuNanoCores, 400_000_000);
  assert.equal(s.nodeUsage("n1")!.memoryBytes, 2048);
  const pod = s.podUsage("ns", "web")!;
  assert.equal(pod.windowMs, 15_000);
  assert.equal(pod.timestampMs, T0 + 15_000);
  assert.deepEqual(pod.containers.map((c) => [c.name, c.usage.cpuNanoCores, c.usage.memoryBytes]), [
    ["app", 20_000_000, 512],
  ]);
  // The same point again keeps the previous one.
  s.store(round(point(T0 + 15_000, 106, 2048), { app: point(T0 + 15_000, 1.3, 512) }));
  assert.equal(s.nodeUsage("n1")!.cpuNanoCores, 400_000_000);
  // A node absent from a round is forgotten.
  s.store(new Map());
  assert.equal(s.nodeUsage("n1"), undefined);
  assert.equal(s.podUsage("ns", "web"), undefined);
});

Deno.test("MetricsStorage starts a restarted container over and rates a fresh one against its start", () => {
  const s = new MetricsStorage(60_000);
  s.store(round(point(T0, 100), { app: point(T0, 5, 1, T0 - 100_000) }));
  s.store(round(point(T0 + 15_000, 101), { app: point(T0 + 15_000, 0.5, 1, T0 + 10_000) }));
  assert.equal(s.podUsage("ns", "web"), undefined, "restarted after the last point");
  // Started 20 s before the point, less than a resolution ago: rated from its start.
  const s2 = new MetricsStorage(60_000);
  s2.store(round(point(T0, 100), { app: point(T0, 2, 1, T0 - 20_000) }));
  const pod = s2.podUsage("ns", "web")!;
  assert.equal(pod.windowMs, 20_000);
  assert.equal(pod.containers[0].usage.cpuNanoCores, 100_000_000);
});

Deno.test("MetricsStorage needs every container of a pod", () => {
  const s = new MetricsStorage(15_000);
  s.store(round(point(T0, 1), { app: point(T0, 1) }));
  s.store(
    round(point(T0 + 15_000, 2), { app: point(T0 + 15_000, 2), side: point(T0 + 15_000, 1) }),
  );
  assert.equal(s.podUsage("ns", "web"), undefined);
});
