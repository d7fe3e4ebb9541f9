/**
 * A fake kubelet for end-to-end tests of the workload controllers: Ready Node objects, and a
 * loop that makes every pod bound to them Running and Ready (with a pod IP) and removes the
 * pods being deleted (as a kubelet does once their containers stopped), by writing through
 * the API as the admin. Stands in for the node agent where running real processes is not the
 * point.
 *
 * @module
 */
import { eventually } from "./eventually.ts";
import type { TestServer } from "./test_server.ts";

interface Pod {
  metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: { phase?: string };
}

/** A running fake kubelet. */
export interface FakeKubelet {
  stop(): Promise<void>;
}

async function json(s: TestServer, method: string, path: string, body?: unknown) {
  const res = await s.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const out = await res.json();
  return { status: res.status, body: out };
}

/** Registers `nodes` (Ready) and starts making their pods run. */
export async function startFakeKubelet(s: TestServer, nodes: string[]): Promise<FakeKubelet> {
  for (const name of nodes) {
    const alloc = { cpu: "16", memory: "32Gi", pods: "110" };
    const r = await json(s, "POST", "/api/v1/nodes", {
      metadata: { name, labels: { "kubernetes.io/hostname": name } },
      status: {
        allocatable: alloc,
        capacity: alloc,
        conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }],
      },
    });
    if (r.status >= 300) throw new Error(`node ${name}: ${JSON.stringify(r.body)}`);
  }
  // The nodes are created with the not-ready taint (as kube's TaintNodesByCondition does);
  // the node lifecycle controller lifts it once it sees them Ready.
  for (const name of nodes) {
    await eventually(`${name} untainted`, async () => {
      const n = await json(s, "GET", `/api/v1/nodes/${name}`);
      return (n.body.spec?.taints ?? []).length === 0;
    }, { timeoutMs: 120_000, intervalMs: 200 });
  }
  let stopped = false;
  let ip = 0;
  const loop = (async () => {
    while (!stopped) {
      const list = await json(s, "GET", "/api/v1/pods").catch(() => undefined);
      for (const pod of (list?.body.items ?? []) as Pod[]) {
        if (stopped || !nodes.includes(pod.spec.nodeName ?? "")) continue;
        const path = `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;
        if (pod.metadata.deletionTimestamp) {
          await json(s, "DELETE", path, {
            gracePeriodSeconds: 0,
            preconditions: { uid: pod.metadata.uid },
          }).catch(() => {});
        } else if (pod.status?.phase !== "Running") {
          const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
          const podIP = `10.244.${Math.floor(++ip / 250)}.${ip % 250 + 1}`;
          await s.fetch(`${path}/status`, {
            method: "PATCH",
            headers: { "content-type": "application/merge-patch+json" },
            body: JSON.stringify({
              status: {
                phase: "Running",
                podIP,
                podIPs: [{ ip: podIP }],
                startTime: now,
                conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((
                  type,
                ) => ({
                  type,
                  status: "True",
                  lastTransitionTime: now,
                })),
              },
            }),
          }).then((r) => r.body?.cancel()).catch(() => {});
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
