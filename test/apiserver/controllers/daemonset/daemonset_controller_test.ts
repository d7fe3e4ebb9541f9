import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { DaemonSetController } from "../../../../apiserver/controllers/daemonset/daemonset_controller.ts";
import { daemonPodNode } from "../../../../apiserver/controllers/daemonset/daemon_pods.ts";
import type { Store } from "../../../../apiserver/registry/generic/store.ts";
import {
  eventReasons,
  openWorkloadEnv,
  podsIn,
  readyNode,
  reap,
  runOn,
  setPhase,
  template,
  type WorkloadEnv,
} from "../job/job_test_support.ts";

interface Env extends WorkloadEnv {
  daemonsets: Store;
  nodes: Store;
  c: DaemonSetController;
}

async function withDaemons(fn: (env: Env) => Promise<void>): Promise<void> {
  const env = await openWorkloadEnv("daemonset-controller-");
  const c = new DaemonSetController({ registry: env.h.registry, feed: env.feed, clock: env.clock });
  try {
    await fn({
      ...env,
      daemonsets: env.h.store("apps", "v1", "daemonsets"),
      nodes: env.h.store("", "v1", "nodes"),
      c,
    });
  } finally {
    await c.stop();
    await env.close();
  }
}

function daemonSet(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: "default" },
    spec: {
      selector: { matchLabels: { app: name } },
      template: template({ app: name }, "Always"),
      ...spec,
    },
  };
}

const nodesOf = (pods: KubeObject[]) => pods.map((p) => daemonPodNode(p)).sort();
const now = "2026-01-01T00:00:00Z";

/** Plays scheduler and kubelet: binds every unbound pod to its node, Running and Ready. */
async function runAll(pods: Store): Promise<void> {
  for (const p of await podsIn(pods)) {
    if (!(p.spec as { nodeName?: string }).nodeName) await runOn(pods, p, daemonPodNode(p)!, now);
  }
}

Deno.test("DaemonSetController.sync() puts one pod on every eligible node", async () => {
  await withDaemons(async ({ nodes, daemonsets, pods, events, h, c }) => {
    await nodes.create("", readyNode("n1"));
    await nodes.create("", readyNode("n2", { disk: "ssd" }));
    await nodes.create(
      "",
      readyNode("n3", {}, [{ key: "dedicated", value: "db", effect: "NoSchedule" }]),
    );
    await nodes.create(
      "",
      readyNode("n4", {}, [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }]),
    );
    await daemonsets.create("default", daemonSet("agent"));
    await c.sync("default/agent");
    let ps = await podsIn(pods);
    assert.deepEqual(nodesOf(ps), ["n1", "n2", "n4"], "the daemon tolerations cover unreachable");
    const pod = ps[0];
    assert.ok(pod.metadata.labels?.["controller-revision-hash"]);
    assert.equal(pod.metadata.labels?.["pod-template-generation"], "1");
    const tolerations = (pod.spec as { tolerations: { key: string }[] }).tolerations.map((t) =>
      t.key
    );
    assert.ok(tolerations.includes("node.kubernetes.io/unschedulable"));
    const revisions = h.store("apps", "v1", "controllerrevisions");
    assert.equal((await revisions.list("default", { plan: { mode: "latest" } })).items.length, 1);
    await c.sync("default/agent"); // the status counts the pods it sees
    let ds = await daemonsets.get("default", "agent");
    assert.deepEqual(
      [
        (ds.status as Record<string, number>).desiredNumberScheduled,
        (ds.status as Record<string, number>).currentNumberScheduled,
      ],
      [3, 3],
    );
    assert.equal(
      (await eventReasons(events, "agent")).filter((r) => r === "SuccessfulCreate").length,
      3,
    );

    await runAll(pods);
    await c.sync("default/agent");
    ds = await daemonsets.get("default", "agent");
    const st = ds.status as Record<string, number>;
    assert.deepEqual([st.numberReady, st.numberAvailable, st.updatedNumberScheduled], [3, 3, 3]);

    await daemonsets.guaranteedUpdate("default", "agent", (cur) => ({
      ...cur!,
      spec: {
        ...(cur!.spec as object),
        template: {
          ...(cur!.spec as { template: object }).template,
          spec: { ...template().spec, restartPolicy: "Always", nodeSelector: { disk: "ssd" } },
        },
      },
    }));
    await c.sync("default/agent");
    await reap(pods);
    await c.sync("default/agent"); // n2's pod was rolled: its new one comes now
    ps = await podsIn(pods);
    assert.deepEqual(nodesOf(ps), ["n2"], "pods where they may no longer run are deleted");
  });
});

Deno.test("DaemonSetController.sync() rolls a new template one node at a time", async () => {
  await withDaemons(async ({ nodes, daemonsets, pods, h, c }) => {
    for (const n of ["n1", "n2", "n3"]) await nodes.create("", readyNode(n));
    await daemonsets.create("default", daemonSet("roll"));
    await c.sync("default/roll");
    await runAll(pods);
    const before = new Set(
      (await podsIn(pods)).map((p) => p.metadata.labels?.["controller-revision-hash"]),
    );
    await daemonsets.guaranteedUpdate("default", "roll", (cur) => ({
      ...cur!,
      spec: { ...(cur!.spec as object), template: template({ app: "roll", v: "2" }, "Always") },
    }));
    const seen: number[] = [];
    for (let round = 0; round < 8; round++) {
      await c.sync("default/roll");
      const terminating = (await podsIn(pods)).filter((p) => p.metadata.deletionTimestamp).length;
      seen.push(terminating);
      await reap(pods);
      await c.sync("default/roll");
      await runAll(pods);
    }
    assert.ok(seen.every((n) => n <= 1), `at most one pod down at a time: ${seen}`);
    const after = await podsIn(pods);
    assert.equal(after.length, 3);
    assert.ok(after.every((p) => !before.has(p.metadata.labels?.["controller-revision-hash"])));
    const revisions = await h.store("apps", "v1", "controllerrevisions").list("default", {
      plan: { mode: "latest" },
    });
    assert.equal(revisions.items.length, 2);
    assert.deepEqual(revisions.items.map((r) => r.revision).sort(), [1, 2]);
  });
});

Deno.test("DaemonSetController.sync() leaves old pods under OnDelete and replaces failed pods", async () => {
  await withDaemons(async ({ nodes, daemonsets, pods, events, c }) => {
    await nodes.create("", readyNode("n1"));
    await daemonsets.create("default", daemonSet("od", { updateStrategy: { type: "OnDelete" } }));
    await c.sync("default/od");
    await runAll(pods);
    const [first] = await podsIn(pods);
    await daemonsets.guaranteedUpdate("default", "od", (cur) => ({
      ...cur!,
      spec: { ...(cur!.spec as object), template: template({ app: "od", v: "2" }, "Always") },
    }));
    await c.sync("default/od");
    assert.deepEqual((await podsIn(pods)).map((p) => p.metadata.uid), [first.metadata.uid]);
    await setPhase(pods, first, "Failed");
    await c.sync("default/od");
    await reap(pods);
    await c.sync("default/od");
    const [second] = await podsIn(pods);
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    assert.notEqual(
      second.metadata.labels?.["controller-revision-hash"],
      first.metadata.labels?.["controller-revision-hash"],
    );
    assert.ok((await eventReasons(events, "od")).includes("FailedDaemonPod"));
  });
});

Deno.test("DaemonSetController.sync() deletes unscheduled pods of a node that went away", async () => {
  await withDaemons(async ({ nodes, daemonsets, pods, c }) => {
    await nodes.create("", readyNode("n1"));
    await nodes.create("", readyNode("gone"));
    await daemonsets.create("default", daemonSet("orphan"));
    await c.sync("default/orphan");
    assert.deepEqual(nodesOf(await podsIn(pods)), ["gone", "n1"]);
    await nodes.delete("", "gone");
    await c.sync("default/orphan");
    assert.deepEqual(nodesOf(await podsIn(pods)), ["n1"]);
  });
});
