import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { TaintEvictionController } from "../../../../apiserver/controllers/tainteviction/taint_eviction_controller.ts";
import { eventReasons, openWorkloadEnv, readyNode, runOn } from "../job/job_test_support.ts";

const UNREACHABLE = {
  key: "node.kubernetes.io/unreachable",
  effect: "NoExecute",
  timeAdded: "2026-01-01T00:00:00Z",
};

function pod(name: string, tolerations: Record<string, unknown>[] = []): KubeObject {
  return {
    metadata: { name, namespace: "default" },
    spec: { containers: [{ name: "c", image: "busybox" }], tolerations },
  };
}

const tolerate = (seconds?: number) => ({
  key: "node.kubernetes.io/unreachable",
  operator: "Exists",
  effect: "NoExecute",
  ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
});

type Cond = { type: string; reason: string; message: string };

Deno.test("TaintEvictionController.sync() evicts pods after their toleration seconds", async () => {
  const env = await openWorkloadEnv("taint-eviction-");
  const c = new TaintEvictionController({
    registry: env.h.registry,
    feed: env.feed,
    clock: env.clock,
  });
  try {
    const nodes = env.h.store("", "v1", "nodes");
    await nodes.create("", readyNode("n1", {}, [UNREACHABLE]));
    for (const p of [pod("plain"), pod("brief", [tolerate(60)]), pod("forever", [tolerate()])]) {
      const created = await env.pods.create("default", p);
      await runOn(env.pods, created, "n1", "2026-01-01T00:00:00Z");
    }
    assert.equal(await c.sync("default/plain"), undefined);
    const plain = await env.pods.get("default", "plain");
    assert.ok(plain.metadata.deletionTimestamp, "an untolerated taint evicts at once");
    const cond = (plain.status as { conditions: Cond[] }).conditions.find((x) =>
      x.type === "DisruptionTarget"
    )!;
    assert.deepEqual([cond.reason, cond.message], [
      "DeletionByTaintManager",
      "Taint manager: deleting due to NoExecute taint",
    ]);
    const events = await env.events.list("default", { plan: { mode: "latest" } });
    const ev = events.items.find((e) => e.reason === "TaintManagerEviction")!;
    assert.equal(ev.message, "Marking for deletion Pod default/plain");
    assert.equal((ev.source as { component: string }).component, "taint-eviction-controller");

    assert.equal(await c.sync("default/brief"), 60_000);
    assert.equal(await c.sync("default/forever"), undefined);
    env.clock.t += 59_000;
    assert.equal(await c.sync("default/brief"), 1_000);
    assert.equal((await env.pods.get("default", "brief")).metadata.deletionTimestamp, undefined);
    env.clock.t += 1_000;
    await c.sync("default/brief");
    assert.ok((await env.pods.get("default", "brief")).metadata.deletionTimestamp);
    await c.sync("default/forever");
    assert.equal((await env.pods.get("default", "forever")).metadata.deletionTimestamp, undefined);
  } finally {
    await c.stop();
    await env.close();
  }
});

Deno.test("TaintEvictionController.sync() cancels an eviction when the taint goes away", async () => {
  const env = await openWorkloadEnv("taint-eviction-cancel-");
  const c = new TaintEvictionController({
    registry: env.h.registry,
    feed: env.feed,
    clock: env.clock,
  });
  try {
    const nodes = env.h.store("", "v1", "nodes");
    await nodes.create("", readyNode("n1", {}, [UNREACHABLE]));
    const created = await env.pods.create("default", pod("p", [tolerate(30)]));
    await runOn(env.pods, created, "n1", "2026-01-01T00:00:00Z");
    assert.equal(await c.sync("default/p"), 30_000);
    await nodes.guaranteedUpdate("", "n1", (n) => ({ ...n!, spec: {} }));
    env.clock.t += 40_000;
    assert.equal(await c.sync("default/p"), undefined);
    assert.equal((await env.pods.get("default", "p")).metadata.deletionTimestamp, undefined);
    assert.deepEqual(await eventReasons(env.events, "p"), ["TaintManagerEviction"]);
  } finally {
    await c.stop();
    await env.close();
  }
});
