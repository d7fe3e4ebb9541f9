/**
 * Many simulated node agents in one process against one real API server (a child process):
 * each registers its Node (labels, capacity, nodeInfo, five conditions) and then runs the real
 * {@link LeaseController} (renew every 10 s with jitter, backoff on failure; the first renewal of
 * each node is placed at random within one interval, as real nodes start at unrelated times).
 * All simulated agents share one HTTP client. Reports how many
 * nodes are held Ready (lease renewed within 40 s and not marked Unknown by the node lifecycle
 * controller), lease-update latency percentiles, and the API server's CPU and memory.
 *
 * Usage: ./scripts/deno run -A scripts/bench/nodes.ts [--nodes=1000] [--duration=60]
 *   [--concurrency=50]
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { KubeList, KubeObject } from "../../shared/api/meta/v1/types.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { Logger } from "../../shared/log/mod.ts";
import { systemClock } from "../../nodeagent/clock/clock.ts";
import { LeaseController } from "../../nodeagent/lease/lease_controller.ts";
import { automaticLabels, buildNode } from "../../nodeagent/register/node_object.ts";
import { registerNode } from "../../nodeagent/register/register_node.ts";
import { computeNodeConditions } from "../../nodeagent/status/node_conditions.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    nodes: { type: "string", default: "1000" },
    duration: { type: "string", default: "60" },
    concurrency: { type: "string", default: "50" },
  },
});
const N = Number(values.nodes), DURATION_S = Number(values.duration);
const CONCURRENCY = Number(values.concurrency);

const dir = await Deno.makeTempDir({ prefix: "bench-nodes-" });
const api = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    new URL("../../cmd/apiserver.ts", import.meta.url).pathname,
    `--data-dir=${dir}`,
    "--secure-port=0",
    "--bind-address=127.0.0.1",
  ],
  stdout: "null",
  stderr: "null",
}).spawn();

function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, USER_HZ = 100
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return m ? Number(m[1]) / 1024 : 0;
}

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
}

const quiet = new Logger({ verbosity: 0, sink: () => {} });
const controllers: LeaseController[] = [];
const starts: ReturnType<typeof setTimeout>[] = [];
let client: RestClient | undefined;
try {
  const kubeconfig = `${dir}/admin.kubeconfig`;
  for (let i = 0; i < 300; i++) {
    try {
      await Deno.stat(kubeconfig);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client = await RestClient.fromKubeconfig(kubeconfig);
  for (let i = 0;; i++) {
    try {
      await client.list({ version: "v1", resource: "namespaces" });
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const c = client;
  const nodeInfo = {
    machineID: "bench",
    systemUUID: "",
    bootID: "bench",
    kernelVersion: Deno.osRelease(),
    osImage: "bench",
    containerRuntimeVersion: "process://0.1.0",
    kubeletVersion: "v1.32.0",
    kubeProxyVersion: "",
    operatingSystem: "linux",
    architecture: "amd64",
  };
  const latencies: number[] = [];
  const cpu0 = cpuSeconds(api.pid);
  const t0 = performance.now();
  let next = 0;
  const regLatencies: number[] = [];
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) {
      const i = next++;
      const name = `sim-node-${String(i).padStart(5, "0")}`;
      const { conditions } = computeNodeConditions({
        previous: [],
        observations: {},
        readings: {
          cpuCount: 2,
          memoryTotalBytes: 8 << 30,
          memoryAvailableBytes: 4 << 30,
          pidMax: 4_194_304,
          processCount: 100,
          rootFs: { capacityBytes: 1e11, availableBytes: 5e10, inodes: 1e6, inodesFree: 9e5 },
        },
        thresholds: [],
        pressureTransitionPeriodMs: 300_000,
        readyErrors: [],
        networkErrors: [],
        now: Date.now(),
      });
      const resources = { cpu: "2", memory: "8388608Ki", pods: "110" };
      const node = buildNode(name, automaticLabels(name, nodeInfo), {
        capacity: resources,
        allocatable: resources,
        conditions,
        addresses: [{ type: "InternalIP", address: "10.0.0.1" }, {
          type: "Hostname",
          address: name,
        }],
        nodeInfo,
        port: 10250,
      });
      const s = performance.now();
      const stored = await registerNode(node, { client: c, clock: systemClock, logger: quiet });
      regLatencies.push(performance.now() - s);
      const lease = new LeaseController({
        client: c,
        nodeName: name,
        nodeUid: stored?.metadata.uid,
        clock: systemClock,
        logger: quiet,
        onRenew: (ms) => latencies.push(ms),
      });
      controllers.push(lease);
      // Real nodes start at unrelated times: spread the first renewal over one interval.
      starts.push(setTimeout(() => lease.start(), Math.random() * 10_000));
    }
  }));
  const registeredS = (performance.now() - t0) / 1000;
  regLatencies.sort((a, b) => a - b);
  console.log(
    `registered ${N} nodes in ${registeredS.toFixed(1)} s ` +
      `(registration p50 ${pct(regLatencies, 0.5).toFixed(1)} ms, p99 ${
        pct(regLatencies, 0.99).toFixed(1)
      } ms)`,
  );
  // Warm-up: every node's first (staggered) renewal happens within one interval.
  await new Promise((r) => setTimeout(r, 12_000));
  latencies.length = 0;
  const cpu1 = cpuSeconds(api.pid);
  const t1 = performance.now();
  let minHeld = Infinity;
  let maxRss = 0;
  const deadline = t1 + DURATION_S * 1000;
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5_000));
    const leases = await c.list<KubeObject>({
      group: "coordination.k8s.io",
      version: "v1",
      resource: "leases",
      namespace: "kube-node-lease",
    });
    const nodes: KubeList = await c.list({ version: "v1", resource: "nodes" });
    const now = Date.now();
    const fresh = new Set(
      leases.items.filter((l) =>
        now - Date.parse(String((l.spec as Record<string, unknown>).renewTime)) < 40_000
      ).map((l) => l.metadata.name),
    );
    const ready = nodes.items.filter((n) => {
      const cs = ((n.status ?? {}) as { conditions?: { type: string; status: string }[] })
        .conditions ?? [];
      return cs.some((x) => x.type === "Ready" && x.status === "True") &&
        fresh.has(n.metadata.name);
    }).length;
    minHeld = Math.min(minHeld, ready);
    maxRss = Math.max(maxRss, rssMiB(api.pid));
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `t=${((performance.now() - t1) / 1000).toFixed(0)}s held Ready ${ready}/${N}; ` +
        `lease updates ${sorted.length}, p50 ${pct(sorted, 0.5).toFixed(1)} ms, ` +
        `p99 ${pct(sorted, 0.99).toFixed(1)} ms; API server RSS ${rssMiB(api.pid).toFixed(0)} MiB`,
    );
  }
  const wall = (performance.now() - t1) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  const cpuLoad = (cpuSeconds(api.pid) - cpu1) / wall;
  console.log(JSON.stringify({
    nodes: N,
    heldReadyMin: minHeld,
    registrationSeconds: Number(registeredS.toFixed(1)),
    registrationCpuSeconds: Number((cpu1 - cpu0).toFixed(1)),
    leaseUpdates: sorted.length,
    leaseUpdatesPerSecond: Number((sorted.length / wall).toFixed(1)),
    leaseUpdateP50Ms: Number(pct(sorted, 0.5).toFixed(1)),
    leaseUpdateP90Ms: Number(pct(sorted, 0.9).toFixed(1)),
    leaseUpdateP99Ms: Number(pct(sorted, 0.99).toFixed(1)),
    apiServerCpuCores: Number(cpuLoad.toFixed(2)),
    apiServerMaxRssMiB: Number(maxRss.toFixed(0)),
    pass: minHeld === N && pct(sorted, 0.5) < 20,
  }));
} finally {
  starts.forEach(clearTimeout);
  await Promise.all(controllers.map((c) => c.stop()));
  client?.close();
  try {
    api.kill("SIGTERM");
  } catch { /* gone */ }
  await api.status;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
