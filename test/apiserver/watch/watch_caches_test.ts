import assert from "node:assert/strict";
import { accessReviewKinds } from "../../../apiserver/registry/authorization/access_review_kinds.ts";
import { configMapKind } from "../../../apiserver/registry/core/configmaps/strategy.ts";
import { ResourceRegistry } from "../../../apiserver/registry/resource_registry.ts";
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import { WatchCaches } from "../../../apiserver/watch/watch_caches.ts";
import { withTempStorage } from "../../support/registry_harness.ts";

Deno.test("WatchCaches.listCacheFor() gives each stored kind of a registry a cache", async () => {
  await withTempStorage("watch_caches_", async ({ storage }) => {
    const caches = new WatchCaches(
      new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 }),
    );
    const registry = new ResourceRegistry({
      storage,
      listCacheFor: (store) => caches.listCacheFor(store),
    });
    const configMaps = registry.add(configMapKind);
    const review = registry.add(
      accessReviewKinds(() => {
        throw new Error("not asked");
      })[0],
    );
    await caches.feed.start();
    try {
      await configMaps.create("default", { metadata: { name: "a" } });
      assert.equal(caches.cacheOf(configMaps)?.cache.prefix, configMaps.prefix);
      assert.equal(caches.cacheOf(review), undefined, "virtual kinds are never stored");
      const list = await configMaps.list("default", { plan: { mode: "any" } });
      assert.deepEqual(list.items.map((o) => o.metadata.name), ["a"]);
    } finally {
      await caches.feed.stop();
    }
  });
});

Deno.test("ResourceRegistry.remove() stops serving a kind, tells listeners and drops its cache", async () => {
  await withTempStorage("watch_caches_remove_", async ({ storage }) => {
    const caches = new WatchCaches(
      new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 }),
    );
    const registry = new ResourceRegistry({
      storage,
      listCacheFor: (store) => caches.listCacheFor(store),
      dropListCache: (store) => caches.drop(store),
    });
    const configMaps = registry.add(configMapKind);
    let changes = 0;
    registry.onChange(() => changes++);
    assert.ok(caches.feed.caches.has(configMaps.prefix));
    registry.remove("", "v1", "configmaps");
    assert.equal(changes, 1);
    assert.equal(registry.lookup("", "v1", "configmaps"), undefined);
    assert.equal(caches.cacheOf(configMaps), undefined);
    assert.ok(!caches.feed.caches.has(configMaps.prefix));
    registry.remove("", "v1", "configmaps");
    assert.equal(changes, 1, "removing what is not served changes nothing");
    const again = registry.add(configMapKind);
    assert.ok(caches.feed.caches.has(again.prefix), "a kind added again gets a new cache");
    await caches.feed.stop();
  });
});
