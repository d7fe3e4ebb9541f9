import assert from "node:assert/strict";
import type { KubeObject, OwnerReference } from "../../../shared/api/meta/v1/types.ts";
import {
  FOREGROUND_FINALIZER,
  GarbageCollector,
  ORPHAN_FINALIZER,
} from "../../../apiserver/controllers/garbage_collector.ts";
import type { Store } from "../../../apiserver/registry/generic/store.ts";
import { LibsqlStorage } from "../../../apiserver/storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import { builtinRegistry, gone, withRegistryHarness } from "../../support/registry_harness.ts";
import { eventually } from "../../support/eventually.ts";

interface Env {
  url: string;
  storage: LibsqlStorage;
  feed: ChangeFeed;
  gc: GarbageCollector;
  configMaps: Store;
  secrets: Store;
  nodes: Store;
}

async function withCollector(fn: (env: Env) => Promise<void>): Promise<void> {
  await withRegistryHarness("garbage_collector_", async (h) => {
    const { url, registry, storage } = h;
    // The change log is read only when a test (or a gap in this process's commits) asks.
    const feed = new ChangeFeed({
      storage,
      remote: false,
      historyWindowMs: 60_000,
      tuning: { pollIntervalMs: 3_600_000 },
    });
    await feed.start();
    // A long resync: reactions must come from the feed unless a test calls resync().
    const gc = new GarbageCollector({ registry, feed, resyncMs: 3_600_000 });
    try {
      await fn({
        url,
        storage,
        feed,
        gc,
        configMaps: h.store("", "v1", "configmaps"),
        secrets: h.store("", "v1", "secrets"),
        nodes: h.store("", "v1", "nodes"),
      });
    } finally {
      await gc.stop();
      await feed.stop();
    }
  });
}

function ref(owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    ...extra,
  };
}

function owned(name: string, owners: OwnerReference[]): KubeObject {
  return { metadata: { name, ownerReferences: owners } };
}

Deno.test("GarbageCollector deletes dependents whose owners are gone", async (t) => {
  await withCollector(async ({ gc, configMaps, secrets, nodes }) => {
    await gc.start();
    await t.step("background deletion of the owner", async () => {
      const owner = await configMaps.create("default", { metadata: { name: "owner" } });
      await secrets.create("default", owned("dep", [ref(owner)]));
      await configMaps.delete("default", "owner");
      await eventually("the dependent is gone", () => gone(secrets, "default", "dep"));
    });
    await t.step("a dependent with another owner left stays", async () => {
      const a = await configMaps.create("default", { metadata: { name: "a" } });
      const b = await configMaps.create("default", { metadata: { name: "b" } });
      await secrets.create("default", owned("two-owners", [ref(a), ref(b)]));
      await configMaps.delete("default", "a");
      // A marker dependent of `a` created after `two-owners` shows the collector got there.
      await configMaps.create("default", owned("marker", [ref(a)]));
      await eventually("the marker is gone", () => gone(configMaps, "default", "marker"));
      assert.ok(!(await gone(secrets, "default", "two-owners")));
      await configMaps.delete("default", "b");
      await eventually("the dependent is gone", () => gone(secrets, "default", "two-owners"));
    });
    await t.step("a chain is collected link by link", async () => {
      const top = await nodes.create("", { metadata: { name: "top" } });
      const mid = await configMaps.create("default", owned("mid", [ref(top)]));
      await secrets.create("default", owned("leaf", [ref(mid)]));
      await nodes.delete("", "top");
      await eventually("the leaf is gone", () => gone(secrets, "default", "leaf"));
      assert.ok(await gone(configMaps, "default", "mid"));
    });
    await t.step("a dependent created after its owner vanished is collected", async () => {
      const owner = await configMaps.create("default", { metadata: { name: "late-owner" } });
      await configMaps.delete("default", "late-owner");
      await secrets.create("default", owned("late", [ref(owner)]));
      await eventually("the dependent is gone", () => gone(secrets, "default", "late"));
    });
  });
});

Deno.test("GarbageCollector serves propagationPolicy Orphan", async () => {
  await withCollector(async ({ gc, configMaps, secrets }) => {
    await gc.start();
    const owner = await configMaps.create("default", { metadata: { name: "owner" } });
    const other = await configMaps.create("default", { metadata: { name: "other" } });
    await secrets.create("default", owned("only", [ref(owner)]));
    await secrets.create("default", owned("shared", [ref(owner), ref(other)]));
    const res = await configMaps.delete("default", "owner", { propagationPolicy: "Orphan" });
    assert.deepEqual(res.object.metadata.finalizers, [ORPHAN_FINALIZER]);
    await eventually("the owner is gone", () => gone(configMaps, "default", "owner"));
    const only = await secrets.get("default", "only");
    assert.equal(only.metadata.ownerReferences, undefined);
    const shared = await secrets.get("default", "shared");
    assert.deepEqual(shared.metadata.ownerReferences?.map((r) => r.name), ["other"]);
  });
});

Deno.test("GarbageCollector serves propagationPolicy Foreground", async () => {
  await withCollector(async ({ gc, configMaps, secrets }) => {
    await gc.start();
    const owner = await configMaps.create("default", { metadata: { name: "owner" } });
    await secrets.create("default", owned("plain", [ref(owner, { blockOwnerDeletion: true })]));
    await secrets.create("default", {
      metadata: { name: "held", finalizers: ["example.com/hold"], ownerReferences: [ref(owner)] },
    });
    const res = await configMaps.delete("default", "owner", { propagationPolicy: "Foreground" });
    assert.deepEqual(res.object.metadata.finalizers, [FOREGROUND_FINALIZER]);
    await eventually("the plain dependent is gone", () => gone(secrets, "default", "plain"));
    // Marked, and the collector done with it: its foregroundDeletion finalizer dropped (it has
    // no dependents), so that the update below does not race the collector's own write.
    await eventually("the held dependent is marked", async () => {
      const { metadata } = await secrets.get("default", "held");
      return !!metadata.deletionTimestamp &&
        JSON.stringify(metadata.finalizers) === JSON.stringify(["example.com/hold"]);
    });
    assert.ok(!(await gone(configMaps, "default", "owner")), "the owner waits for its dependents");
    const held = await secrets.get("default", "held");
    await secrets.update("default", "held", {
      ...held,
      metadata: { ...held.metadata, finalizers: [] },
    });
    await eventually("the owner is gone", () => gone(configMaps, "default", "owner"));
  });
});

Deno.test("GarbageCollector follows another process's commits through the change feed", async () => {
  await withCollector(async ({ url, feed, gc, configMaps, secrets }) => {
    await gc.start();
    // Another API server on the same database creates an owner and its dependent, then
    // deletes the owner; this process commits nothing, so only the change feed can tell.
    const other = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
    let revision: number;
    try {
      const registry = builtinRegistry(other);
      const otherConfigMaps = registry.lookup("", "v1", "configmaps")!;
      const owner = await otherConfigMaps.create("default", { metadata: { name: "owner" } });
      await registry.lookup("", "v1", "secrets")!.create("default", owned("dep", [ref(owner)]));
      const { object } = await otherConfigMaps.delete("default", "owner");
      revision = Number(object.metadata.resourceVersion);
    } finally {
      await other.close();
    }
    assert.ok(await feed.waitFor(revision, 30_000), "the feed reads the other's commits");
    assert.ok(await gone(configMaps, "default", "owner"));
    await eventually("the dependent is gone", () => gone(secrets, "default", "dep"));
  });
});

Deno.test("GarbageCollector.resync() checks owners against storage", async (t) => {
  await withCollector(async ({ gc, storage, configMaps, secrets, nodes }) => {
    const owner = await configMaps.create("default", { metadata: { name: "owner" } });
    await secrets.create("default", owned("kept", [ref(owner)]));
    await secrets.create("default", owned("stale-uid", [ref(owner, { uid: "recreated-uid" })]));
    await secrets.create(
      "default",
      owned("unknown-kind", [{
        apiVersion: "example.com/v1",
        kind: "Widget",
        name: "w",
        uid: "u",
      }]),
    );
    const node = await nodes.create("", { metadata: { name: "n1" } });
    // Removed behind the store's back, as another process's deletion would be.
    await secrets.create("default", owned("orphaned", [ref(node)]));
    await storage.delete(nodes.key("", "n1"), 0);
    await gc.start();

    await t.step("an owner with another UID does not count", async () => {
      await eventually("the dependent is gone", () => gone(secrets, "default", "stale-uid"));
    });
    await t.step("an owner removed elsewhere is seen at start", async () => {
      await eventually("the dependent is gone", () => gone(secrets, "default", "orphaned"));
    });
    await t.step("live owners and unknown kinds keep their dependents", async () => {
      await gc.resync();
      await configMaps.create("default", owned("marker", [ref(owner, { uid: "nobody" })]));
      await eventually("the marker is gone", () => gone(configMaps, "default", "marker"));
      assert.ok(!(await gone(secrets, "default", "kept")));
      assert.ok(!(await gone(secrets, "default", "unknown-kind")));
    });
  });
});

Deno.test("GarbageCollector never collects a cluster-scoped dependent of a namespaced owner", async () => {
  await withCollector(async ({ gc, nodes }) => {
    await gc.start();
    const missing = { apiVersion: "v1", kind: "ConfigMap", name: "missing", uid: "missing-uid" };
    await nodes.create("", owned("invalid-ref", [missing]));
    const missingNode = { apiVersion: "v1", kind: "Node", name: "missing", uid: "missing-uid-2" };
    await nodes.create("", owned("marker", [missingNode]));
    await eventually("the marker is gone", () => gone(nodes, "", "marker"));
    assert.ok(!(await gone(nodes, "", "invalid-ref")));
  });
});
