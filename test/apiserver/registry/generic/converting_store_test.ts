import assert from "node:assert/strict";
import { ConvertingStore } from "../../../../apiserver/registry/generic/converting_store.ts";
import { ResourceRegistry } from "../../../../apiserver/registry/resource_registry.ts";
import { eventsV1EventKind } from "../../../../apiserver/registry/events/events/strategy.ts";
import type { ListQuery } from "../../../../apiserver/registry/generic/list_query.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { withRegistryHarness, withTempStorage } from "../../../support/registry_harness.ts";

const ALL: ListQuery = { plan: { mode: "latest" } } as ListQuery;

function coreEvent(name: string) {
  return {
    metadata: { name },
    involvedObject: { kind: "Pod", name: "p", namespace: "default" },
    reason: "Pulled",
    message: "pulled",
    count: 2,
  };
}

Deno.test("ConvertingStore serves the stored kind's objects converted, with one resourceVersion", async () => {
  await withRegistryHarness("converting_store_", async (h) => {
    const core = h.store("", "v1", "events");
    const v1 = h.store("events.k8s.io", "v1", "events");
    assert.ok(v1 instanceof ConvertingStore);
    assert.equal(v1.storageStore, core);
    assert.equal(v1.prefix, core.prefix);
    const created = await core.create("default", coreEvent("a"));
    const got = await v1.get("default", "a");
    assert.equal(got.apiVersion, "events.k8s.io/v1");
    assert.equal(got.note, "pulled");
    assert.equal(got.deprecatedCount, 2);
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
    const list = await v1.list("default", ALL);
    assert.equal(list.apiVersion, "events.k8s.io/v1");
    assert.equal(list.kind, "EventList");
    assert.deepEqual(list.items.map((e) => e.note), ["pulled"]);
    const deleted = await v1.deleteCollection("default", ALL);
    assert.equal(deleted.kind, "EventList");
    assert.deepEqual(deleted.items.map((e) => [e.apiVersion, e.note]), [[
      "events.k8s.io/v1",
      "pulled",
    ]]);
  });
});

Deno.test("ConvertingStore names the served group in the stored store's errors", async () => {
  await withRegistryHarness("converting_store_", async (h) => {
    const v1 = h.store("events.k8s.io", "v1", "events");
    await assert.rejects(v1.get("default", "missing"), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 404);
      assert.equal(err.message, 'events.events.k8s.io "missing" not found');
      assert.equal(err.status.details?.group, "events.k8s.io");
      return true;
    });
  });
});

Deno.test("ConvertingStore runs the served form's validation before converting", async () => {
  await withRegistryHarness("converting_store_", async (h) => {
    const v1 = h.store("events.k8s.io", "v1", "events");
    await assert.rejects(
      v1.create("default", { metadata: { name: "x" }, type: "Normal" }),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 422);
        assert.match(
          err.message,
          /^Event.events.k8s.io "x" is invalid: .*eventTime: Required value/,
        );
        return true;
      },
    );
  });
});

Deno.test("ResourceRegistry.add() refuses a served version whose stored kind is missing", async () => {
  await withTempStorage("converting_store_", (s) => {
    const registry = new ResourceRegistry({ storage: s.storage });
    assert.throws(() => registry.add(eventsV1EventKind), /served from events v1/);
    return Promise.resolve();
  });
});
