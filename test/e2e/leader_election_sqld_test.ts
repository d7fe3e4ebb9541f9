/**
 * Two API servers on one libSQL server elect one leader for the controllers and one for the
 * scheduler through the kube-system Leases: exactly one controller set acts (a ReplicaSet of
 * 3 gets 3 pods, 3 SuccessfulCreate events), and when the leader stops the other server takes
 * both Leases over and its controllers act (the ReplicaSet scaled to 5 gets 5 pods, bound by
 * its scheduler).
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import { eventually } from "../support/eventually.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import type { ServerOptions } from "../../apiserver/options.ts";

const FLAGS = [
  "--leader-elect-lease-duration=6s",
  "--leader-elect-renew-deadline=4s",
  "--leader-elect-retry-period=500ms",
];
const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const RS = "/apis/apps/v1/namespaces/default/replicasets";
const deadline = { timeoutMs: 120_000, intervalMs: 200, retryErrors: true };

async function send(s: TestServer, method: string, path: string, body?: unknown) {
  const res = await s.fetch(path, {
    method,
    headers: {
      "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function holder(s: TestServer, name: string): Promise<string> {
  return (await send(s, "GET", `${LEASES}/${name}`)).spec?.holderIdentity ?? "";
}

async function ownedPods(s: TestServer) {
  const list = await send(s, "GET", "/api/v1/namespaces/default/pods");
  return (list.items as {
    metadata: { ownerReferences?: { name: string }[] };
    spec: { nodeName?: string };
  }[])
    .filter((p) => p.metadata.ownerReferences?.[0]?.name === "web");
}

function named(identity: string) {
  return (o: ServerOptions) => o.controllers!.leaderElection.identity = identity;
}

/** A Ready node, and a ReplicaSet of 3 created through `b` whose pods `a` sees bound. */
async function replicaSetOfThree(a: TestServer, b: TestServer): Promise<void> {
  await send(a, "POST", "/api/v1/nodes", {
    metadata: { name: "node-1", labels: { "kubernetes.io/hostname": "node-1" } },
    status: {
      allocatable: { cpu: "8", memory: "16Gi", pods: "110" },
      capacity: { cpu: "8", memory: "16Gi", pods: "110" },
      conditions: [{ type: "Ready", status: "True" }],
    },
  });
  await send(b, "POST", RS, {
    metadata: { name: "web" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "c", image: "x" }] },
      },
    },
  });
  await eventually("3 pods", async () => (await ownedPods(a)).length === 3, deadline);
  await eventually(
    "3 bound",
    async () => (await ownedPods(a)).every((p) => p.spec.nodeName === "node-1"),
    deadline,
  );
}

Deno.test("two API servers on one sqld run one controller set and one scheduler; the other takes over", async () => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  const servers: Record<string, TestServer> = {};
  try {
    servers.a = await startTestServer([`--storage-url=${sqld.url}`, ...FLAGS], {
      optionsHook: named("host_a"),
    });
    servers.b = await startTestServer([`--storage-url=${sqld.url}`, ...FLAGS], {
      optionsHook: named("host_b"),
    });
    const { a, b } = servers;
    const leader = await eventually(
      "a controller leader",
      async () => await holder(b, "kube-controller-manager") || undefined,
      deadline,
    );
    assert.ok(leader === "host_a" || leader === "host_b");
    assert.ok(["host_a", "host_b"].includes(await holder(a, "kube-scheduler")));

    await replicaSetOfThree(a, b);
    // A second controller set would have made more: wait a little and count again.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal((await ownedPods(b)).length, 3);
    const events = await send(a, "GET", "/api/v1/namespaces/default/events");
    const creates = events.items.filter((e: { reason: string }) => e.reason === "SuccessfulCreate");
    assert.equal(creates.length, 3);

    // The leader stops; the other server takes both Leases and its controllers act.
    const [gone, survivor] = leader === "host_a" ? ["a", "b"] : ["b", "a"];
    await servers[gone].close();
    delete servers[gone];
    const s = servers[survivor];
    const next = `host_${survivor}`;
    await eventually(
      "the survivor leads the controllers",
      async () => await holder(s, "kube-controller-manager") === next,
      deadline,
    );
    await eventually(
      "the survivor leads the scheduler",
      async () => await holder(s, "kube-scheduler") === next,
      deadline,
    );
    await send(s, "PATCH", `${RS}/web`, { spec: { replicas: 5 } });
    await eventually("5 bound pods", async () => {
      const pods = await ownedPods(s);
      return pods.length === 5 && pods.every((p) => p.spec.nodeName === "node-1");
    }, deadline);
  } finally {
    for (const srv of Object.values(servers)) await srv.close();
    await sqld.stop();
  }
});
