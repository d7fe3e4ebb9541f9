import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { NamespaceController } from "../../../apiserver/controllers/namespace_controller.ts";
import type { Store } from "../../../apiserver/registry/generic/store.ts";
import type { ResourceRegistry } from "../../../apiserver/registry/resource_registry.ts";
import { LibsqlStorage } from "../../../apiserver/storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import { builtinRegistry, gone, withRegistryHarness } from "../../support/registry_harness.ts";
import { eventually } from "../../support/eventually.ts";

interface Env {
  url: string;
  storage: LibsqlStorage;
  registry: ResourceRegistry;
  feed: ChangeFeed;
  controller: NamespaceController;
  namespaces: Store;
  configMaps: Store;
  pods: Store;
}

async function withController(fn: (env: Env) => Promise<void>): Promise<void> {
  await withRegistryHarness("namespace_controller_", async (h) => {
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
    const controller = new NamespaceController({ registry, feed, resyncMs: 3_600_000 });
    try {
      await fn({
        url,
        storage,
        registry,
        feed,
        controller,
        namespaces: h.store("", "v1", "namespaces"),
        configMaps: h.store("", "v1", "configmaps"),
        pods: h.store("", "v1", "pods"),
      });
    } finally {
      await controller.stop();
      await feed.stop();
    }
  });
}

const pod = (name: string, nodeName?: string): KubeObject => ({
  metadata: { name },
  spec: { containers: [{ name: "c", image: "img:1" }], ...(nodeName ? { nodeName } : {}) },
});

Deno.test("NamespaceController removes a terminating namespace once it is empty", async (t) => {
  await withController(async ({ controller, namespaces, configMaps, pods }) => {
    await controller.start();
    await t.step("an empty namespace goes at once", async () => {
      await namespaces.create("", { metadata: { name: "empty" } });
      const { deleted } = await namespaces.delete("", "empty");
      assert.equal(deleted, false, "the kubernetes finalizer holds it first");
      await eventually("the namespace is gone", () => gone(namespaces, "", "empty"));
    });
    await t.step("content is deleted first, other namespaces untouched", async () => {
      await namespaces.create("", { metadata: { name: "full" } });
      await namespaces.create("", { metadata: { name: "keep" } });
      for (const n of ["a", "b"]) await configMaps.create("full", { metadata: { name: n } });
      await pods.create("full", pod("p"));
      await configMaps.create("keep", { metadata: { name: "a" } });
      await namespaces.delete("", "full");
      await eventually("the namespace is gone", () => gone(namespaces, "", "full"));
      assert.equal((await configMaps.list("full", { plan: { mode: "latest" } })).items.length, 0);
      assert.equal((await pods.list("full", { plan: { mode: "latest" } })).items.length, 0);
      assert.equal((await configMaps.list("keep", { plan: { mode: "latest" } })).items.length, 1);
      assert.ok(!(await gone(namespaces, "", "keep")));
    });
    await t.step("an object with a finalizer holds the namespace until it goes", async () => {
      await namespaces.create("", { metadata: { name: "held" } });
      await configMaps.create("held", { metadata: { name: "f", finalizers: ["example.com/f"] } });
      await configMaps.create("held", { metadata: { name: "plain" } });
      await namespaces.delete("", "held");
      await eventually("the plain object is gone", () => gone(configMaps, "held", "plain"));
      const f = await configMaps.get("held", "f");
      assert.ok(f.metadata.deletionTimestamp, "the finalized object is marked");
      const ns = await namespaces.get("", "held");
      assert.equal((ns.status as { phase: string }).phase, "Terminating");
      // Removing the finalizer lets both go, driven by the deletion's commit.
      await configMaps.update("held", "f", { ...f, metadata: { ...f.metadata, finalizers: [] } });
      await eventually("the namespace is gone", () => gone(namespaces, "", "held"));
    });
    await t.step("a pod bound to a node keeps its namespace during its grace period", async () => {
      await namespaces.create("", { metadata: { name: "graceful" } });
      await pods.create("graceful", pod("bound", "node-1"));
      await namespaces.delete("", "graceful");
      await eventually(
        "the pod is marked",
        async () => !!(await pods.get("graceful", "bound")).metadata.deletionTimestamp,
      );
      assert.ok(!(await gone(namespaces, "", "graceful")));
      // The node agent would now stop it and delete it with grace period 0.
      await pods.delete("graceful", "bound", { gracePeriodSeconds: 0 });
      await eventually("the namespace is gone", () => gone(namespaces, "", "graceful"));
    });
    await t.step("other spec finalizers stay after the kubernetes one goes", async () => {
      await namespaces.create("", {
        metadata: { name: "other-fin" },
        spec: { finalizers: ["example.com/x"] },
      });
      await namespaces.delete("", "other-fin");
      await eventually("only the other finalizer is left", async () => {
        const ns = await namespaces.get("", "other-fin");
        return JSON.stringify((ns.spec as { finalizers: string[] }).finalizers) ===
          '["example.com/x"]';
      });
    });
  });
});

Deno.test("NamespaceController follows another process's commits through the change feed", async () => {
  await withController(async ({ url, feed, controller, namespaces, configMaps }) => {
    await namespaces.create("", { metadata: { name: "remote" } });
    await configMaps.create("remote", { metadata: { name: "content" } });
    await controller.start();
    // Another API server on the same database marks it terminating; this process never
    // commits anything about it, so only the change feed can tell the controller.
    const other = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
    let revision: number;
    try {
      const { object } = await builtinRegistry(other).lookup("", "v1", "namespaces")!
        .delete("", "remote");
      revision = Number(object.metadata.resourceVersion);
    } finally {
      await other.close();
    }
    assert.ok(await feed.waitFor(revision, 30_000), "the feed reads the other's commit");
    await eventually("the namespace is gone", () => gone(namespaces, "", "remote"));
    assert.ok(await gone(configMaps, "remote", "content"), "its content went first");
  });
});

Deno.test("NamespaceController.resync() finds namespaces terminated by another process", async () => {
  await withController(async ({ url, controller, namespaces }) => {
    await namespaces.create("", { metadata: { name: "elsewhere" } });
    await controller.start();
    const other = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
    try {
      await builtinRegistry(other).lookup("", "v1", "namespaces")!.delete("", "elsewhere");
    } finally {
      await other.close();
    }
    controller.resync();
    await eventually("the namespace is gone", () => gone(namespaces, "", "elsewhere"));
  });
});

Deno.test("NamespaceController.stop() stops reacting", async () => {
  await withController(async ({ controller, namespaces }) => {
    await controller.start();
    await controller.stop();
    await namespaces.create("", { metadata: { name: "after-stop" } });
    await namespaces.delete("", "after-stop");
    controller.resync();
    await controller.stop();
    const ns = await namespaces.get("", "after-stop");
    assert.ok(ns.metadata.deletionTimestamp, "still terminating: nobody finalized it");
  });
});
