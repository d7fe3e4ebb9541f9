/**
 * Scheduler benchmark: creates `--nodes` simulated nodes (API objects, no agents) and
 * `--pods` pending pods through the store, timing the creates alone; then starts the
 * scheduler over them and times until every pod is bound (pods scheduled per second, each
 * bound through `pods/binding`). Same run, figures only, no assertions.
 *
 * Usage: ./scripts/deno run -A scripts/bench/scheduler.ts [--nodes=1000] [--pods=10000]
 *   [--concurrency=16]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Scheduler } from "../../apiserver/controllers/scheduler/scheduler.ts";
import { parseServerOptions } from "../../apiserver/options.ts";
import { startServer } from "../../apiserver/server.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { Logger } from "../../shared/log/mod.ts";

const { values } = parseArgs({
  options: {
    nodes: { type: "string" },
    pods: { type: "string" },
    concurrency: { type: "string" },
  },
});
const NODES = Number(values.nodes ?? "1000");
const PODS = Number(values.pods ?? "10000");
const CONCURRENCY = Number(values.concurrency ?? "16");

async function inParallel(n: number, fn: (i: number) => Promise<void>): Promise<number> {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return (performance.now() - start) / 1000;
}

const dir = await Deno.makeTempDir({ prefix: "bench-scheduler-" });
const parsed = parseServerOptions([
  `--data-dir=${dir}`,
  "--secure-port=0",
  "--bind-address=127.0.0.1",
  "--disable-scheduler",
]);
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const server = await startServer(parsed.options, { logger: new Logger({ sink: () => {} }) });
await server.ready;
const nodes = server.registry.lookup("", "v1", "nodes")!;
const pods = server.registry.lookup("", "v1", "pods")!;
const alloc = { cpu: "32", memory: "128Gi", pods: "110" };

const nodeSeconds = await inParallel(NODES, async (i) => {
  const name = `node-${i}`;
  const created = await nodes.create("", {
    metadata: { name, labels: { "kubernetes.io/hostname": name, zone: `z${i % 3}` } },
    spec: {},
  } as KubeObject);
  created.status = {
    allocatable: alloc,
    capacity: alloc,
    conditions: [{ type: "Ready", status: "True" }],
  };
  await nodes.update("", name, created, { subresource: "status" });
});
// New nodes carry the not-ready taint until the node controller sees them Ready.
for (;;) {
  const list = await nodes.list("", { plan: { mode: "latest" } });
  const tainted = list.items.some((n) =>
    ((n.spec as { taints?: { key: string }[] }).taints ?? []).some((t) =>
      t.key === "node.kubernetes.io/not-ready"
    )
  );
  if (!tainted) break;
  await new Promise((r) => setTimeout(r, 200));
}
const createSeconds = await inParallel(PODS, async (i) => {
  await pods.create("default", {
    metadata: { name: `pod-${i}`, labels: { app: `a${i % 10}` } },
    spec: {
      containers: [{ name: "c", image: "x", resources: { requests: { cpu: "100m" } } }],
    },
  } as KubeObject);
});

const scheduler = new Scheduler({ registry: server.registry, feed: server.watchFeed });
const start = performance.now();
await scheduler.start();
for (;;) {
  await scheduler.idle();
  const list = await pods.list("default", { plan: { mode: "latest" } });
  if (list.items.every((p) => (p.spec as Record<string, unknown>).nodeName)) break;
  await new Promise((r) => setTimeout(r, 200));
}
const scheduleSeconds = (performance.now() - start) / 1000;
await scheduler.stop();

console.log(`nodes: ${NODES} created in ${nodeSeconds.toFixed(1)} s`);
console.log(
  `pods: ${PODS} created in ${createSeconds.toFixed(1)} s (${
    (PODS / createSeconds).toFixed(0)
  }/s, creates alone)`,
);
console.log(
  `scheduled: ${PODS} bound in ${scheduleSeconds.toFixed(1)} s (${
    (PODS / scheduleSeconds).toFixed(0)
  }/s)`,
);
await server.close();
await Deno.remove(dir, { recursive: true });
