/**
 * Deployment benchmark: the time from creating a Deployment with `--replicas` replicas (through
 * the HTTPS API) to all of them ready, on `--nodes` simulated nodes (Ready Node objects and a
 * fake kubelet in this script that watches pods and marks every bound one Running and Ready
 * through `pods/status`). The anchor, same run: creating the same number of pods directly
 * through the API (the creates alone, and until they are all ready through the same scheduler
 * and fake kubelet), after as many untimed warm-up pods. The server runs its default controllers
 * and scheduler. Figures only, no assertions.
 *
 * Usage: ./scripts/deno run -A scripts/bench/deployment.ts [--replicas=100] [--nodes=10]
 *   [--concurrency=16]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { parseServerOptions } from "../../apiserver/options.ts";
import { startServer } from "../../apiserver/server.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { Logger } from "../../shared/log/mod.ts";

const { values } = parseArgs({
  options: {
    replicas: { type: "string" },
    nodes: { type: "string" },
    concurrency: { type: "string" },
  },
});
const REPLICAS = Number(values.replicas ?? "100");
const NODES = Number(values.nodes ?? "10");
const CONCURRENCY = Number(values.concurrency ?? "16");

const NODES_REF = { version: "v1", resource: "nodes" };
const PODS_REF = { version: "v1", resource: "pods" };
const DEPLOYMENTS_REF = { group: "apps", version: "v1", resource: "deployments" };

type Pod = KubeObject & {
  spec: { nodeName?: string };
  status?: { phase?: string };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (since: number) => (performance.now() - since) / 1000;

async function inParallel(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** Ready Node objects, waited for until the node lifecycle controller lifted the not-ready taint. */
async function createNodes(client: RestClient): Promise<void> {
  const alloc = { cpu: "32", memory: "128Gi", pods: "110" };
  await inParallel(NODES, async (i) => {
    const name = `node-${i}`;
    await client.create(NODES_REF, {
      metadata: { name, labels: { "kubernetes.io/hostname": name } },
      status: {
        allocatable: alloc,
        capacity: alloc,
        conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }],
      },
    } as KubeObject);
  });
  for (;;) {
    const list = await client.list<KubeObject>(NODES_REF);
    const tainted = list.items.some((n) =>
      ((n.spec as { taints?: unknown[] } | undefined)?.taints ?? []).length > 0
    );
    if (!tainted) return;
    await sleep(200);
  }
}

/** The fake kubelet: marks each bound pod Running and Ready once, as it sees it in the watch. */
function startFakeKubelet(client: RestClient): { stop(): Promise<void> } {
  const abort = new AbortController();
  const started = new Set<string>();
  let ip = 0;
  const markRunning = async (pod: Pod) => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const podIP = `10.244.${Math.floor(++ip / 250)}.${ip % 250 + 1}`;
    const ref = {
      ...PODS_REF,
      namespace: pod.metadata.namespace,
      name: pod.metadata.name,
      subresource: "status",
    };
    await client.patch(ref, {
      status: {
        phase: "Running",
        podIP,
        podIPs: [{ ip: podIP }],
        startTime: now,
        conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
          type,
          status: "True",
          lastTransitionTime: now,
        })),
      },
    }, "application/merge-patch+json");
  };
  const loop = (async () => {
    while (!abort.signal.aborted) {
      await client.watch<Pod>(PODS_REF, { allowWatchBookmarks: false }, (e) => {
        const pod = e.object;
        if (e.type !== "ADDED" && e.type !== "MODIFIED") return;
        if (!pod.spec?.nodeName || pod.status?.phase === "Running") return;
        if (started.has(pod.metadata.uid!)) return;
        started.add(pod.metadata.uid!);
        markRunning(pod).catch(() => started.delete(pod.metadata.uid!));
      }, abort.signal).catch(() => sleep(100));
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}

async function readyPods(client: RestClient, namespace: string): Promise<number> {
  const list = await client.list<Pod>({ ...PODS_REF, namespace });
  return list.items.filter((p) =>
    (p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions
      ?.some((c) => c.type === "Ready" && c.status === "True")
  ).length;
}

const POD_SPEC = {
  terminationGracePeriodSeconds: 1,
  containers: [{ name: "c", image: "x", resources: { requests: { cpu: "100m" } } }],
};

/** Creates REPLICAS pods directly: returns the creates' seconds and the seconds to all ready. */
async function directPods(client: RestClient, namespace: string): Promise<[number, number]> {
  const start = performance.now();
  await inParallel(REPLICAS, async (i) => {
    await client.create({ ...PODS_REF, namespace }, {
      metadata: { name: `pod-${i}`, labels: { app: "direct" } },
      spec: POD_SPEC,
    } as KubeObject);
  });
  const created = seconds(start);
  while (await readyPods(client, namespace) < REPLICAS) await sleep(50);
  return [created, seconds(start)];
}

/** Creates the Deployment: returns the seconds until its status reports every replica ready. */
async function deployment(client: RestClient): Promise<number> {
  const start = performance.now();
  await client.create({ ...DEPLOYMENTS_REF, namespace: "deploy" }, {
    metadata: { name: "web" },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: POD_SPEC },
    },
  } as KubeObject);
  for (;;) {
    const d = await client.get<KubeObject>({
      ...DEPLOYMENTS_REF,
      namespace: "deploy",
      name: "web",
    });
    const s = (d.status ?? {}) as { readyReplicas?: number; availableReplicas?: number };
    if (s.readyReplicas === REPLICAS && s.availableReplicas === REPLICAS) return seconds(start);
    await sleep(50);
  }
}

const dir = await Deno.makeTempDir({ prefix: "bench-deployment-" });
const parsed = parseServerOptions([
  `--data-dir=${dir}`,
  "--secure-port=0",
  "--bind-address=127.0.0.1",
]);
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const server = await startServer(parsed.options, { logger: new Logger({ sink: () => {} }) });
await server.ready;
const client = new RestClient(await loadKubeconfig(server.kubeconfigPath));
for (const name of ["warmup", "direct", "deploy"]) {
  await client.create({ version: "v1", resource: "namespaces" }, { metadata: { name } });
}
await createNodes(client);
const kubelet = startFakeKubelet(client);
// The same pods once untimed first, so neither figure pays for the server's warm-up.
await directPods(client, "warmup");
const [createSeconds, directReadySeconds] = await directPods(client, "direct");
const deploymentSeconds = await deployment(client);
await kubelet.stop();

console.log(`nodes: ${NODES} simulated (Ready, fake kubelet)`);
console.log(
  `pods: ${REPLICAS} created directly in ${createSeconds.toFixed(2)} s (${
    (REPLICAS / createSeconds).toFixed(0)
  }/s, creates alone); all ready ${directReadySeconds.toFixed(2)} s after the first create`,
);
console.log(
  `deployment: replicas=${REPLICAS} created to ${REPLICAS} ready in ${
    deploymentSeconds.toFixed(2)
  } s (${(deploymentSeconds / createSeconds).toFixed(1)}x the direct creates, ${
    (deploymentSeconds / directReadySeconds).toFixed(1)
  }x the direct pods to ready)`,
);
client.close();
await server.close();
await Deno.remove(dir, { recursive: true });
