/**
 * End-to-end: the scheduler the API server runs, over HTTPS with nodes created through the
 * API (no agents): pods land on the nodes that fit, an unschedulable pod gets kube's
 * condition and FailedScheduling event, a pod is scheduled once a node appears, preemption,
 * and kubectl (where /usr/bin/kubectl exists).
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { kubectlFor, kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

const NS = "/api/v1/namespaces/default";

async function call(t: TestServer, method: string, path: string, body?: unknown): Promise<Obj> {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) {
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  }
  return json;
}

/** Creates a Ready node with the given allocatable, labels and taints. */
async function createNode(
  t: TestServer,
  name: string,
  opts: { cpu?: string; labels?: Record<string, string>; taints?: Obj[] } = {},
): Promise<void> {
  await call(t, "POST", "/api/v1/nodes", {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...opts.labels } },
    spec: opts.taints ? { taints: opts.taints } : {},
  });
  const node = await call(t, "GET", `/api/v1/nodes/${name}`);
  const resources = { cpu: opts.cpu ?? "4", memory: "8Gi", pods: "110" };
  node.status = {
    capacity: resources,
    allocatable: resources,
    conditions: [{
      type: "Ready",
      status: "True",
      reason: "KubeletReady",
      lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    }],
  };
  await call(t, "PUT", `/api/v1/nodes/${name}/status`, node);
  // A new node carries the not-ready taint until the node controller sees it Ready.
  await waitFor(`${name} without the not-ready taint`, async () => {
    const n = await call(t, "GET", `/api/v1/nodes/${name}`);
    const taints: Obj[] = n.spec.taints ?? [];
    return taints.some((x) => x.key === "node.kubernetes.io/not-ready") ? undefined : n;
  });
}

function podBody(name: string, spec: Obj = {}, cpu = "100m", labels: Obj = {}): Obj {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels },
    spec: {
      containers: [{ name: "c", image: "x", resources: { requests: { cpu } } }],
      ...spec,
    },
  };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function nodeOf(t: TestServer, pod: string): Promise<string> {
  return await waitFor(`${pod} bound`, async () => {
    const p = await call(t, "GET", `${NS}/pods/${pod}`);
    return p.spec.nodeName || undefined;
  });
}

async function eventsOf(t: TestServer, pod: string): Promise<Obj[]> {
  const list = await call(
    t,
    "GET",
    `${NS}/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${pod}`)}`,
  );
  return list.items;
}

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

Deno.test("scheduler binds pods to the nodes that fit, with a Scheduled event", async () => {
  await withServer(async (t) => {
    await createNode(t, "small", { cpu: "1", labels: { disk: "hdd" } });
    await createNode(t, "big", { cpu: "8", labels: { disk: "ssd" } });
    await createNode(t, "tainted", {
      cpu: "8",
      taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }],
    });
    await call(t, "POST", `${NS}/pods`, podBody("needs-ssd", { nodeSelector: { disk: "ssd" } }));
    await call(t, "POST", `${NS}/pods`, podBody("needs-cpu", {}, "2"));
    await call(
      t,
      "POST",
      `${NS}/pods`,
      podBody("tolerant", {
        tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{
                matchFields: [{ key: "metadata.name", operator: "In", values: ["tainted"] }],
              }],
            },
          },
        },
      }),
    );
    assert.equal(await nodeOf(t, "needs-ssd"), "big");
    assert.notEqual(await nodeOf(t, "needs-cpu"), "small");
    assert.equal(await nodeOf(t, "tolerant"), "tainted");
    const pod = await call(t, "GET", `${NS}/pods/needs-ssd`);
    const cond = pod.status.conditions.find((c: Obj) => c.type === "PodScheduled");
    assert.equal(cond.status, "True");
    const events = await waitFor("Scheduled event", async () => {
      const e = await eventsOf(t, "needs-ssd");
      return e.length > 0 ? e : undefined;
    });
    assert.equal(events[0].reason, "Scheduled");
    assert.equal(events[0].type, "Normal");
    assert.equal(events[0].message, "Successfully assigned default/needs-ssd to big");
    assert.equal(events[0].source.component, "default-scheduler");
  });
});

Deno.test("scheduler reports an unschedulable pod in kube's words, then binds it once a node appears", async () => {
  await withServer(async (t) => {
    await createNode(t, "n1", { cpu: "1" });
    await createNode(t, "n2", { cpu: "1" });
    await createNode(t, "n3", {
      cpu: "8",
      taints: [{ key: "team", value: "a", effect: "NoSchedule" }],
    });
    await call(t, "POST", `${NS}/pods`, podBody("huge", {}, "2"));
    const message = "0/3 nodes are available: 1 node(s) had untolerated taint {team: a}, " +
      "2 Insufficient cpu. preemption: 0/3 nodes are available: " +
      "1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.";
    const cond = await waitFor("PodScheduled=False", async () => {
      const p = await call(t, "GET", `${NS}/pods/huge`);
      return (p.status.conditions ?? []).find((c: Obj) => c.type === "PodScheduled");
    });
    assert.equal(cond.status, "False");
    assert.equal(cond.reason, "Unschedulable");
    assert.equal(cond.message, message);
    const event = await waitFor(
      "FailedScheduling",
      async () => (await eventsOf(t, "huge")).find((e) => e.reason === "FailedScheduling"),
    );
    assert.equal(event.type, "Warning");
    assert.equal(event.message, message);
    await createNode(t, "n4", { cpu: "4" });
    assert.equal(await nodeOf(t, "huge"), "n4");
  });
});

Deno.test("scheduler keeps host ports, anti-affinity and spread constraints", async () => {
  await withServer(async (t) => {
    for (const [name, zone] of [["a1", "a"], ["a2", "a"], ["b1", "b"]]) {
      await createNode(t, name, { labels: { "topology.kubernetes.io/zone": zone } });
    }
    const anti = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{
            labelSelector: { matchLabels: { app: "web" } },
            topologyKey: "topology.kubernetes.io/zone",
          }],
        },
      },
    };
    await call(t, "POST", `${NS}/pods`, podBody("web-1", anti, "100m", { app: "web" }));
    const first = await nodeOf(t, "web-1");
    await call(t, "POST", `${NS}/pods`, podBody("web-2", anti, "100m", { app: "web" }));
    const second = await nodeOf(t, "web-2");
    assert.notEqual(first.slice(0, 1), second.slice(0, 1), `${first} and ${second} share a zone`);
    await call(t, "POST", `${NS}/pods`, podBody("web-3", anti, "100m", { app: "web" }));
    const cond = await waitFor("web-3 unschedulable", async () => {
      const p = await call(t, "GET", `${NS}/pods/web-3`);
      return (p.status.conditions ?? []).find((c: Obj) => c.type === "PodScheduled");
    });
    assert.match(
      cond.message,
      /^0\/3 nodes are available: 3 node\(s\) didn't match pod anti-affinity rules\./,
    );
  });
});

Deno.test("scheduler preempts a lower-priority pod for a higher-priority one", async () => {
  await withServer(async (t) => {
    await createNode(t, "only", { cpu: "1" });
    await call(t, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
      apiVersion: "scheduling.k8s.io/v1",
      kind: "PriorityClass",
      metadata: { name: "high" },
      value: 1000,
    });
    await call(t, "POST", `${NS}/pods`, podBody("low", {}, "800m"));
    assert.equal(await nodeOf(t, "low"), "only");
    await call(t, "POST", `${NS}/pods`, podBody("high", { priorityClassName: "high" }, "800m"));
    const nominated = await waitFor("high nominated", async () => {
      const p = await call(t, "GET", `${NS}/pods/high`);
      return p.status.nominatedNodeName;
    });
    assert.equal(nominated, "only");
    // No kubelet runs here: the victim stays terminating until it is removed for good.
    const low = await call(t, "GET", `${NS}/pods/low`);
    assert.ok(low.metadata.deletionTimestamp, "the victim is being deleted");
    const preempted = (await eventsOf(t, "low")).find((e) => e.reason === "Preempted");
    assert.ok(preempted, "a Preempted event");
    await call(t, "DELETE", `${NS}/pods/low`, { gracePeriodSeconds: 0 });
    assert.equal(await nodeOf(t, "high"), "only");
  });
});

Deno.test({
  name: "kubectl run gets a node, and kubectl describe pod shows the scheduler's events",
  ignore: skipWithoutKubectl("the scheduler's kubectl test"),
  async fn() {
    await withServer(async (t) => {
      const k = kubectlFor(t);
      await createNode(t, "worker");
      kubectlOk(await runKubectl(k, ["run", "web", "--image=x"]));
      assert.equal(await nodeOf(t, "web"), "worker");
      kubectlOk(
        await runKubectl(k, [
          "run",
          "big",
          "--image=x",
          `--overrides=${
            JSON.stringify({
              spec: {
                containers: [{ name: "big", image: "x", resources: { requests: { cpu: "64" } } }],
              },
            })
          }`,
        ]),
      );
      await waitFor(
        "FailedScheduling",
        async () => (await eventsOf(t, "big")).find((e) => e.reason === "FailedScheduling"),
      );
      const web = kubectlOk(await runKubectl(k, ["describe", "pod", "web"]));
      assert.match(web, /Node:\s+worker/);
      assert.match(
        web,
        /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web to worker/,
      );
      const big = kubectlOk(await runKubectl(k, ["describe", "pod", "big"]));
      assert.match(
        big,
        /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/1 nodes are available: 1 Insufficient cpu\./,
      );
    });
  },
});
