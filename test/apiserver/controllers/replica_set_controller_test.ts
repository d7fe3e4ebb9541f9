import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import {
  REPLICA_SET,
  ReplicaSetController,
  REPLICATION_CONTROLLER,
} from "../../../apiserver/controllers/replica_set_controller.ts";
import { podsToDelete } from "../../../apiserver/controllers/pod_ranking.ts";
import { eventually } from "../../support/eventually.ts";
import { type FeedEnv, markPod, withFeedEnv } from "./_feed_env.ts";

function rs(name: string, replicas: number, labels = { app: name }): KubeObject {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "x" }] } },
    },
  } as unknown as KubeObject;
}

async function podsOf(env: FeedEnv, owner: string): Promise<KubeObject[]> {
  const list = await env.store("", "v1", "pods").list("default", { plan: { mode: "latest" } });
  return list.items.filter((p) =>
    p.metadata.ownerReferences?.some((r) => r.name === owner && r.controller) &&
    !p.metadata.deletionTimestamp
  );
}

async function withController(
  fn: (env: FeedEnv, c: ReplicaSetController) => Promise<void>,
  kind = REPLICA_SET,
) {
  await withFeedEnv("replicaset_", async (env) => {
    const c = new ReplicaSetController({ registry: env.registry, feed: env.feed, kind });
    await c.start();
    try {
      await fn(env, c);
    } finally {
      await c.stop();
    }
  });
}

const deadline = { timeoutMs: 30_000, intervalMs: 50 };

Deno.test("ReplicaSetController creates pods with the controller reference and deletes extras", async () => {
  await withController(async (env) => {
    const sets = env.store("apps", "v1", "replicasets");
    const created = await sets.create("default", rs("web", 3));
    await eventually("3 pods", async () => (await podsOf(env, "web")).length === 3, deadline);
    const pods = await podsOf(env, "web");
    for (const p of pods) {
      assert.ok(p.metadata.name!.startsWith("web-"));
      assert.deepEqual(p.metadata.labels, { app: "web" });
      const ref = p.metadata.ownerReferences![0];
      assert.equal(ref.uid, created.metadata.uid);
      assert.equal(ref.kind, "ReplicaSet");
      assert.equal(ref.blockOwnerDeletion, true);
    }
    await markPod(env, pods[0], true);
    await eventually("status", async () => {
      const s = (await sets.get("default", "web")).status as Record<string, number>;
      return s.replicas === 3 && s.readyReplicas === 1 && s.availableReplicas === 1 &&
        s.fullyLabeledReplicas === 3 && s.observedGeneration === 1;
    }, deadline);
    // Scale down: the not-ready pods go first.
    await sets.guaranteedUpdate("default", "web", (cur) => {
      (cur!.spec as { replicas: number }).replicas = 1;
      return cur;
    });
    await eventually("1 pod", async () => (await podsOf(env, "web")).length === 1, deadline);
    assert.equal((await podsOf(env, "web"))[0].metadata.name, pods[0].metadata.name);
    const events = await env.store("", "v1", "events").list("default", {
      plan: { mode: "latest" },
    });
    const reasons = events.items.map((e) => (e as unknown as { reason: string }).reason);
    assert.ok(reasons.includes("SuccessfulCreate"));
    assert.ok(reasons.includes("SuccessfulDelete"));
  });
});

Deno.test("ReplicaSetController adopts a matching orphan and releases a pod that stops matching", async () => {
  await withController(async (env) => {
    const podStore = env.store("", "v1", "pods");
    await podStore.create("default", {
      metadata: { name: "orphan", labels: { app: "web" } },
      spec: { containers: [{ name: "c", image: "x" }] },
    } as unknown as KubeObject);
    await env.store("apps", "v1", "replicasets").create("default", rs("web", 2));
    await eventually("2 pods", async () => (await podsOf(env, "web")).length === 2, deadline);
    assert.ok((await podsOf(env, "web")).some((p) => p.metadata.name === "orphan"));
    await podStore.guaranteedUpdate("default", "orphan", (cur) => {
      cur!.metadata.labels = { app: "other" };
      return cur;
    });
    await eventually("released and replaced", async () => {
      const o = await podStore.get("default", "orphan");
      const mine = await podsOf(env, "web");
      return !o.metadata.ownerReferences?.length && mine.length === 2;
    }, deadline);
  });
});

Deno.test("ReplicaSetController drives ReplicationControllers", async () => {
  await withController(async (env) => {
    await env.store("", "v1", "replicationcontrollers").create("default", {
      metadata: { name: "rc" },
      spec: {
        replicas: 2,
        selector: { app: "rc" },
        template: {
          metadata: { labels: { app: "rc" } },
          spec: { containers: [{ name: "c", image: "x" }] },
        },
      },
    } as unknown as KubeObject);
    await eventually("2 pods", async () => (await podsOf(env, "rc")).length === 2, deadline);
    assert.equal(
      (await podsOf(env, "rc"))[0].metadata.ownerReferences![0].kind,
      "ReplicationController",
    );
  }, REPLICATION_CONTROLLER);
});

Deno.test("podsToDelete() prefers unscheduled, then pending, then not ready, then newer pods", () => {
  const pod = (name: string, extra: Record<string, unknown>): KubeObject =>
    ({ metadata: { name, creationTimestamp: "2026-01-01T00:00:00Z" }, ...extra }) as KubeObject;
  const ready = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
  const pods = [
    pod("running-ready", { spec: { nodeName: "n" }, status: ready }),
    pod("running", { spec: { nodeName: "n" }, status: { phase: "Running" } }),
    pod("pending", { spec: { nodeName: "n" }, status: { phase: "Pending" } }),
    pod("unscheduled", { spec: {}, status: { phase: "Pending" } }),
  ];
  assert.deepEqual(podsToDelete(pods, 4).map((p) => p.metadata.name), [
    "unscheduled",
    "pending",
    "running",
    "running-ready",
  ]);
});
