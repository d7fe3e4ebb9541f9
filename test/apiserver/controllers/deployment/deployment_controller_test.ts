import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  REPLICA_SET,
  ReplicaSetController,
} from "../../../../apiserver/controllers/replica_set_controller.ts";
import { DeploymentController } from "../../../../apiserver/controllers/deployment/deployment_controller.ts";
import { eventually } from "../../../support/eventually.ts";
import { type FeedEnv, markPod, withFeedEnv } from "../_feed_env.ts";

const deadline = { timeoutMs: 60_000, intervalMs: 50 };

function deployment(name: string, replicas: number, extra: Record<string, unknown> = {}) {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "c", image: "v1" }] },
      },
      ...extra,
    },
  } as unknown as KubeObject;
}

/** Both controllers, and a fake kubelet that makes every new pod Running and Ready. */
async function withControllers(fn: (env: FeedEnv) => Promise<void>) {
  await withFeedEnv("deployment_", async (env) => {
    const rs = new ReplicaSetController({
      registry: env.registry,
      feed: env.feed,
      kind: REPLICA_SET,
    });
    const dc = new DeploymentController({ registry: env.registry, feed: env.feed });
    await rs.start();
    await dc.start();
    let stop = false;
    const kubelet = (async () => {
      const pods = env.store("", "v1", "pods");
      while (!stop) {
        const list = await pods.list("default", { plan: { mode: "latest" } });
        for (const p of list.items) {
          if (!p.status || (p.status as { phase?: string }).phase !== "Running") {
            if (!p.metadata.deletionTimestamp) await markPod(env, p, true).catch(() => {});
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      await fn(env);
    } finally {
      stop = true;
      await kubelet;
      await dc.stop();
      await rs.stop();
    }
  });
}

async function setsOf(env: FeedEnv): Promise<KubeObject[]> {
  const list = await env.store("apps", "v1", "replicasets").list("default", {
    plan: { mode: "latest" },
  });
  return list.items;
}

function spec(o: KubeObject) {
  return o.spec as Record<string, unknown>;
}

function st(o: KubeObject) {
  return (o.status ?? {}) as Record<string, number> & {
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}

async function waitComplete(env: FeedEnv, name: string, replicas: number, generation?: number) {
  const deployments = env.store("apps", "v1", "deployments");
  await eventually(`${name} complete`, async () => {
    const d = await deployments.get("default", name);
    const s = st(d);
    const p = s.conditions?.find((c) => c.type === "Progressing");
    return s.updatedReplicas === replicas && s.replicas === replicas &&
      s.availableReplicas === replicas &&
      s.observedGeneration === (generation ?? d.metadata.generation) &&
      p?.reason === "NewReplicaSetAvailable";
  }, deadline);
  return await deployments.get("default", name);
}

Deno.test("DeploymentController rolls a template change out and back, with revisions and conditions", async () => {
  await withControllers(async (env) => {
    const deployments = env.store("apps", "v1", "deployments");
    await deployments.create("default", deployment("web", 3));
    let d = await waitComplete(env, "web", 3);
    assert.equal(d.metadata.annotations?.["deployment.kubernetes.io/revision"], "1");
    const [first] = await setsOf(env);
    const hash = first.metadata.labels?.["pod-template-hash"];
    assert.ok(hash);
    assert.equal(first.metadata.name, `web-${hash}`);
    assert.equal(first.metadata.annotations?.["deployment.kubernetes.io/desired-replicas"], "3");
    assert.equal(first.metadata.annotations?.["deployment.kubernetes.io/max-replicas"], "4");
    const avail = st(d).conditions!.find((c) => c.type === "Available")!;
    assert.equal(avail.reason, "MinimumReplicasAvailable");
    assert.equal(avail.message, "Deployment has minimum availability.");
    assert.equal(
      st(d).conditions!.find((c) => c.type === "Progressing")!.message,
      `ReplicaSet "web-${hash}" has successfully progressed.`,
    );

    // A new image: a second set takes over, the first is scaled to 0.
    await deployments.guaranteedUpdate("default", "web", (cur) => {
      ((spec(cur!).template as KubeObject).spec as { containers: { image: string }[] })
        .containers[0].image = "v2";
      return cur;
    });
    d = await waitComplete(env, "web", 3);
    assert.equal(d.metadata.annotations?.["deployment.kubernetes.io/revision"], "2");
    let sets = await setsOf(env);
    assert.equal(sets.length, 2);
    const old = sets.find((s) => s.metadata.name === first.metadata.name)!;
    assert.equal(spec(old).replicas, 0);

    // Back to the first template (what `kubectl rollout undo` writes): the first set is the
    // new one again, at revision 3 with revision 1 in its history.
    await deployments.guaranteedUpdate("default", "web", (cur) => {
      ((spec(cur!).template as KubeObject).spec as { containers: { image: string }[] })
        .containers[0].image = "v1";
      return cur;
    });
    d = await waitComplete(env, "web", 3);
    assert.equal(d.metadata.annotations?.["deployment.kubernetes.io/revision"], "3");
    sets = await setsOf(env);
    assert.equal(sets.length, 2);
    const back = sets.find((s) => s.metadata.name === first.metadata.name)!;
    assert.equal(spec(back).replicas, 3);
    assert.equal(back.metadata.annotations?.["deployment.kubernetes.io/revision"], "3");
    assert.equal(back.metadata.annotations?.["deployment.kubernetes.io/revision-history"], "1");
    const events = await env.store("", "v1", "events").list("default", {
      plan: { mode: "latest" },
    });
    const messages = events.items.map((e) => (e as unknown as { message: string }).message);
    assert.ok(
      messages.includes(`Scaled up replica set web-${hash} from 0 to 3`),
      messages.join("\n"),
    );
  });
});

Deno.test("DeploymentController scales, pauses and keeps revisionHistoryLimit", async () => {
  await withControllers(async (env) => {
    const deployments = env.store("apps", "v1", "deployments");
    await deployments.create("default", deployment("api", 2, { revisionHistoryLimit: 1 }));
    await waitComplete(env, "api", 2);
    await deployments.guaranteedUpdate("default", "api", (cur) => {
      spec(cur!).replicas = 4;
      return cur;
    });
    await waitComplete(env, "api", 4);
    for (const image of ["v2", "v3"]) {
      await deployments.guaranteedUpdate("default", "api", (cur) => {
        ((spec(cur!).template as KubeObject).spec as { containers: { image: string }[] })
          .containers[0].image = image;
        return cur;
      });
      await waitComplete(env, "api", 4);
    }
    await eventually("one old set kept", async () => (await setsOf(env)).length === 2, deadline);
    await deployments.guaranteedUpdate("default", "api", (cur) => {
      spec(cur!).paused = true;
      return cur;
    });
    await eventually("paused condition", async () => {
      const d = await deployments.get("default", "api");
      return st(d).conditions?.find((c) => c.type === "Progressing")?.reason === "DeploymentPaused";
    }, deadline);
    await deployments.guaranteedUpdate("default", "api", (cur) => {
      ((spec(cur!).template as KubeObject).spec as { containers: { image: string }[] })
        .containers[0].image = "v4";
      return cur;
    });
    await new Promise((r) => setTimeout(r, 300));
    const images = (await setsOf(env)).map((s) => JSON.stringify(spec(s).template));
    assert.ok(!images.some((t) => t.includes('"v4"')), "no rollout while paused");
    await deployments.guaranteedUpdate("default", "api", (cur) => {
      spec(cur!).paused = false;
      return cur;
    });
    await waitComplete(env, "api", 4);
  });
});

Deno.test("DeploymentController recreates: the old pods go before new ones are made", async () => {
  await withControllers(async (env) => {
    const deployments = env.store("apps", "v1", "deployments");
    await deployments.create("default", deployment("batch", 2, { strategy: { type: "Recreate" } }));
    await waitComplete(env, "batch", 2);
    await deployments.guaranteedUpdate("default", "batch", (cur) => {
      ((spec(cur!).template as KubeObject).spec as { containers: { image: string }[] })
        .containers[0].image = "v2";
      return cur;
    });
    const d = await waitComplete(env, "batch", 2);
    assert.equal(d.metadata.annotations?.["deployment.kubernetes.io/revision"], "2");
    const sets = await setsOf(env);
    assert.deepEqual(sets.map((s) => spec(s).replicas).sort(), [0, 2]);
  });
});
