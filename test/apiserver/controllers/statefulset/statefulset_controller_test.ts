import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatefulSetController } from "../../../../apiserver/controllers/statefulset/statefulset_controller.ts";
import type { Store } from "../../../../apiserver/registry/generic/store.ts";
import {
  eventReasons,
  openWorkloadEnv,
  podsIn,
  reap,
  runOn,
  template,
  type WorkloadEnv,
} from "../job/job_test_support.ts";

interface Env extends WorkloadEnv {
  sets: Store;
  claims: Store;
  c: StatefulSetController;
}

async function withSets(fn: (env: Env) => Promise<void>): Promise<void> {
  const env = await openWorkloadEnv("statefulset-controller-");
  const c = new StatefulSetController({
    registry: env.h.registry,
    feed: env.feed,
    clock: env.clock,
  });
  try {
    await fn({
      ...env,
      sets: env.h.store("apps", "v1", "statefulsets"),
      claims: env.h.store("", "v1", "persistentvolumeclaims"),
      c,
    });
  } finally {
    await c.stop();
    await env.close();
  }
}

function statefulSet(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "default" },
    spec: {
      serviceName: name,
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: template({ app: name }, "Always"),
      ...spec,
    },
  };
}

const names = async (pods: Store) => (await podsIn(pods)).map((p) => p.metadata.name);
const at = "2026-01-01T00:00:00Z";

/** Runs every pending pod (binds it and marks it Running and Ready). */
async function runAll(pods: Store): Promise<void> {
  for (const p of await podsIn(pods)) {
    if (!(p.spec as { nodeName?: string }).nodeName && !p.metadata.deletionTimestamp) {
      await runOn(pods, p, "n1", at);
    }
  }
}

Deno.test("StatefulSetController.sync() creates ordered pods with identity and claims, one at a time", async () => {
  await withSets(async ({ sets, pods, claims, events, c }) => {
    await sets.create(
      "default",
      statefulSet("web", {
        volumeClaimTemplates: [{
          metadata: { name: "www" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        }],
      }),
    );
    await c.sync("default/web");
    assert.deepEqual(await names(pods), ["web-0"]);
    await c.sync("default/web");
    assert.deepEqual(await names(pods), ["web-0"], "OrderedReady waits for web-0");
    const [p0] = await podsIn(pods);
    assert.equal(p0.metadata.labels?.["statefulset.kubernetes.io/pod-name"], "web-0");
    assert.equal(p0.metadata.labels?.["apps.kubernetes.io/pod-index"], "0");
    assert.ok(p0.metadata.labels?.["controller-revision-hash"]?.startsWith("web-"));
    const spec = p0.spec as {
      hostname: string;
      subdomain: string;
      volumes: { name: string; persistentVolumeClaim: { claimName: string } }[];
    };
    assert.deepEqual([spec.hostname, spec.subdomain], ["web-0", "web"]);
    assert.deepEqual(spec.volumes.map((v) => v.persistentVolumeClaim?.claimName), ["www-web-0"]);
    const claim = await claims.get("default", "www-web-0");
    assert.equal(claim.metadata.labels?.app, "web");
    for (let i = 0; i < 3; i++) {
      await runAll(pods);
      await c.sync("default/web");
    }
    await runAll(pods);
    await c.sync("default/web");
    assert.deepEqual(await names(pods), ["web-0", "web-1", "web-2"]);
    const status = (await sets.get("default", "web")).status as Record<string, unknown>;
    assert.deepEqual(
      [
        status.replicas,
        status.readyReplicas,
        status.currentReplicas,
        status.updatedReplicas,
        status.availableReplicas,
      ],
      [3, 3, 3, 3, 3],
    );
    assert.equal(status.currentRevision, status.updateRevision);
    assert.ok((await eventReasons(events, "web")).includes("SuccessfulCreate"));

    await sets.guaranteedUpdate(
      "default",
      "web",
      (cur) => ({ ...cur!, spec: { ...(cur!.spec as object), replicas: 1 } }),
    );
    await c.sync("default/web");
    assert.deepEqual(
      (await podsIn(pods)).filter((p) => p.metadata.deletionTimestamp).map((p) => p.metadata.name),
      ["web-2"],
      "highest first",
    );
    await c.sync("default/web");
    assert.deepEqual(
      (await podsIn(pods)).filter((p) => p.metadata.deletionTimestamp).map((p) => p.metadata.name),
      ["web-2"],
      "one at a time",
    );
    await reap(pods);
    await c.sync("default/web");
    await reap(pods);
    assert.deepEqual(await names(pods), ["web-0"]);
    assert.ok(await claims.get("default", "www-web-2"), "claims are retained");
  });
});

Deno.test("StatefulSetController.sync() creates every pod at once under Parallel", async () => {
  await withSets(async ({ sets, pods, c }) => {
    await sets.create("default", statefulSet("par", { podManagementPolicy: "Parallel" }));
    await c.sync("default/par");
    assert.deepEqual(await names(pods), ["par-0", "par-1", "par-2"]);
  });
});

Deno.test("StatefulSetController.sync() rolls from the highest ordinal down to the partition", async () => {
  await withSets(async ({ sets, pods, c }) => {
    await sets.create(
      "default",
      statefulSet("roll", {
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 1 } },
      }),
    );
    await c.sync("default/roll");
    await runAll(pods);
    await c.sync("default/roll");
    const old = (await podsIn(pods))[0].metadata.labels?.["controller-revision-hash"];
    await sets.guaranteedUpdate("default", "roll", (cur) => ({
      ...cur!,
      spec: { ...(cur!.spec as object), template: template({ app: "roll", v: "2" }, "Always") },
    }));
    const order: string[] = [];
    for (let round = 0; round < 6; round++) {
      await c.sync("default/roll");
      for (const p of await podsIn(pods)) {
        if (p.metadata.deletionTimestamp) order.push(p.metadata.name!);
      }
      await reap(pods);
      await c.sync("default/roll");
      await runAll(pods);
    }
    assert.deepEqual(order, ["roll-2", "roll-1"]);
    const byName = Object.fromEntries(
      (await podsIn(pods)).map((
        p,
      ) => [p.metadata.name, p.metadata.labels?.["controller-revision-hash"]]),
    );
    assert.equal(byName["roll-0"], old, "below the partition stays");
    assert.notEqual(byName["roll-1"], old);
    const status = (await sets.get("default", "roll")).status as Record<string, unknown>;
    assert.deepEqual([status.currentReplicas, status.updatedReplicas], [1, 2]);
    assert.notEqual(status.currentRevision, status.updateRevision);
  });
});

Deno.test("StatefulSetController.sync() leaves pods under OnDelete until they are deleted", async () => {
  await withSets(async ({ sets, pods, c }) => {
    await sets.create(
      "default",
      statefulSet("od", { replicas: 1, updateStrategy: { type: "OnDelete" } }),
    );
    await c.sync("default/od");
    await runAll(pods);
    const [before] = await podsIn(pods);
    await sets.guaranteedUpdate("default", "od", (cur) => ({
      ...cur!,
      spec: { ...(cur!.spec as object), template: template({ app: "od", v: "2" }, "Always") },
    }));
    await c.sync("default/od");
    assert.equal((await podsIn(pods))[0].metadata.uid, before.metadata.uid);
    await pods.delete("default", "od-0", { gracePeriodSeconds: 0 });
    await c.sync("default/od");
    const [after] = await podsIn(pods);
    assert.notEqual(
      after.metadata.labels?.["controller-revision-hash"],
      before.metadata.labels?.["controller-revision-hash"],
    );
  });
});

Deno.test("StatefulSetController.sync() gives claims owners per persistentVolumeClaimRetentionPolicy", async () => {
  await withSets(async ({ sets, pods, claims, c }) => {
    const set = await sets.create(
      "default",
      statefulSet("db", {
        replicas: 2,
        podManagementPolicy: "Parallel",
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Delete" },
        volumeClaimTemplates: [{
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        }],
      }),
    );
    await c.sync("default/db");
    const claim0 = await claims.get("default", "data-db-0");
    assert.deepEqual(claim0.metadata.ownerReferences?.map((r) => [r.kind, r.uid]), [
      ["StatefulSet", set.metadata.uid],
    ]);
    const pod1 = (await podsIn(pods)).find((p) => p.metadata.name === "db-1")!;
    await sets.guaranteedUpdate("default", "db", (cur) => ({
      ...cur!,
      spec: { ...(cur!.spec as object), replicas: 1 },
    }));
    await c.sync("default/db");
    const claim1 = await claims.get("default", "data-db-1");
    assert.ok(
      claim1.metadata.ownerReferences?.some((r) => r.kind === "Pod" && r.uid === pod1.metadata.uid),
      "the scaled-down pod owns its claim",
    );
    const kept = await claims.get("default", "data-db-0");
    assert.ok(!kept.metadata.ownerReferences?.some((r) => r.kind === "Pod"));
  });
});
