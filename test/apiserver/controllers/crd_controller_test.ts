import assert from "node:assert/strict";
import type { CustomResourceDefinition } from "../../../shared/api/apiextensions/v1/types.ts";
import { CrdController } from "../../../apiserver/controllers/crd_controller.ts";
import { ChangeFeed } from "../../../apiserver/watch/change_feed.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";
import { eventually } from "../../support/eventually.ts";

const SCHEMA = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

function widgets(): CustomResourceDefinition {
  return {
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget" },
      versions: [
        { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: SCHEMA } },
        { name: "v2", served: false, storage: false, schema: { openAPIV3Schema: SCHEMA } },
      ],
    },
  };
}

Deno.test("CrdController serves an accepted definition's versions and finalizes a deleted one", async () => {
  await withRegistryHarness("crd_controller_", async (h) => {
    const feed = new ChangeFeed({
      storage: h.storage,
      remote: false,
      historyWindowMs: 60_000,
      tuning: { pollIntervalMs: 50 },
    });
    await feed.start();
    const controller = new CrdController({ registry: h.registry, feed });
    try {
      const crds = h.store("apiextensions.k8s.io", "v1", "customresourcedefinitions");
      // Created before the controller starts: served once start() resolves.
      await crds.create("", widgets());
      await controller.start();
      const store = h.registry.lookup("example.com", "v1", "widgets");
      assert.ok(store, "served at start");
      assert.equal(h.registry.lookup("example.com", "v2", "widgets"), undefined, "not served");
      const crd = await crds.get("", "widgets.example.com") as CustomResourceDefinition;
      assert.deepEqual(crd.status?.storedVersions, ["v1"]);
      assert.equal(crd.status?.acceptedNames?.listKind, "WidgetList");
      await store.create("default", { metadata: { name: "w" } });
      await crds.delete("", "widgets.example.com");
      await eventually("the definition gone", async () => {
        const left = await crds.list("", { plan: { mode: "latest" } });
        return left.items.length === 0 || undefined;
      });
      await eventually("not served", () => !h.registry.lookup("example.com", "v1", "widgets"));
      const keys = await h.storage.list("/registry/example.com/widgets/", {});
      assert.equal(keys.items.length, 0, "its instances were deleted");
    } finally {
      await controller.stop();
      await feed.stop();
    }
  });
});
