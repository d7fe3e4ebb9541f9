import assert from "node:assert/strict";
import { ConvertingStore } from "../../../../apiserver/registry/generic/converting_store.ts";
import type { KindDef, ServedVersion } from "../../../../apiserver/registry/generic/kind.ts";
import type { ListQuery } from "../../../../apiserver/registry/generic/list_query.ts";
import { ResourceRegistry } from "../../../../apiserver/registry/resource_registry.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";

const ALL: ListQuery = { plan: { mode: "latest" } } as ListQuery;

/** example.com Widget at `version`: v1 has `spec.size`, v2 `spec.dimensions.size`. */
function widgetKind(version: string, servedFrom?: ServedVersion): KindDef {
  return {
    group: "example.com",
    version,
    kind: "Widget",
    plural: "widgets",
    singular: "widget",
    namespaced: true,
    servedFrom,
    strategy: { validate: () => [] },
  };
}

type Spec = Record<string, unknown>;

/** v1 → v2 or v2 → v1 from the object's own apiVersion, after a tick (as a webhook would). */
async function convert(obj: KubeObject, to: string): Promise<KubeObject> {
  await new Promise((r) => setTimeout(r, 1));
  const out = structuredClone(obj);
  const from = obj.apiVersion?.split("/")[1];
  const spec = (out.spec ?? {}) as Spec;
  if (from === "v1" && to === "v2") out.spec = { dimensions: { size: spec.size } };
  if (from === "v2" && to === "v1") out.spec = { size: (spec.dimensions as Spec)?.size };
  out.apiVersion = `example.com/${to}`;
  return out;
}

/** An asynchronous conversion to and from `storage` for `served`, counting batch calls. */
function asyncServed(storage: KindDef, served: string, calls: number[]): ServedVersion {
  const to = storage.version;
  return {
    storage,
    toStorage: (o) => convert({ ...o, apiVersion: `example.com/${served}` }, to),
    fromStorage: (o) => convert(o, served),
    fromStorageList: (objs) => {
      calls.push(objs.length);
      return Promise.all(objs.map((o) => convert(o, served)));
    },
  };
}

Deno.test("ConvertingStore awaits asynchronous conversions on every verb", async () => {
  await withTempStorage("converting_async_", async (s) => {
    const registry = new ResourceRegistry({ storage: s.storage });
    const v2 = widgetKind("v2");
    const v2Store = registry.add(v2);
    const calls: number[] = [];
    const v1 = registry.add(widgetKind("v1", asyncServed(v2, "v1", calls)));
    assert.ok(v1 instanceof ConvertingStore);
    assert.equal(v1.convertsAsynchronously, true);
    const created = await v1.create("default", {
      metadata: { name: "a" },
      spec: { size: 3 },
    } as KubeObject);
    assert.equal(created.apiVersion, "example.com/v1");
    assert.deepEqual(created.spec, { size: 3 });
    const stored = await v2Store.get("default", "a");
    assert.deepEqual(stored.spec, { dimensions: { size: 3 } });
    assert.deepEqual((await v1.get("default", "a")).spec, { size: 3 });
    await v1.create("default", { metadata: { name: "b" }, spec: { size: 4 } } as KubeObject);
    const list = await v1.list("default", ALL);
    assert.deepEqual(list.items.map((o) => o.spec), [{ size: 3 }, { size: 4 }]);
    assert.deepEqual(calls, [2], "one batch for the list");
    const updated = await v1.guaranteedUpdate("default", "a", (cur) => {
      assert.deepEqual(cur?.spec, { size: 3 });
      return { ...cur!, spec: { size: 5 } };
    });
    assert.deepEqual(updated.object.spec, { size: 5 });
    assert.deepEqual((await v2Store.get("default", "a")).spec, { dimensions: { size: 5 } });
    const deleted = await v1.delete("default", "a");
    assert.deepEqual(deleted.object.spec, { size: 5 });
    assert.equal(deleted.object.apiVersion, "example.com/v1");
    const rest = await v1.deleteCollection("default", ALL);
    assert.deepEqual(rest.items.map((o) => [o.apiVersion, o.spec]), [
      ["example.com/v1", { size: 4 }],
    ]);
  });
});

Deno.test("ConvertingStore answers a failed conversion as the request's error", async () => {
  await withTempStorage("converting_async_", async (s) => {
    const registry = new ResourceRegistry({ storage: s.storage });
    const v2 = widgetKind("v2");
    const v2Store = registry.add(v2);
    const failing = () => Promise.reject(StatusError.internal("conversion webhook failed"));
    const v1 = registry.add(widgetKind("v1", {
      storage: v2,
      toStorage: failing,
      fromStorage: failing,
      fromStorageList: failing,
    }));
    await v2Store.create("default", { metadata: { name: "a" }, spec: {} } as KubeObject);
    for (const call of [() => v1.get("default", "a"), () => v1.list("default", ALL)]) {
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 500);
        assert.match(err.message, /conversion webhook failed/);
        return true;
      });
    }
    await assert.rejects(
      v1.create("default", { metadata: { name: "b" } } as KubeObject),
      /conversion webhook failed/,
    );
    await assert.rejects(v2Store.get("default", "b"), /not found/);
  });
});

Deno.test("ConvertingStore.toServedNow() refuses an asynchronous conversion", async () => {
  await withTempStorage("converting_async_", (s) => {
    const registry = new ResourceRegistry({ storage: s.storage });
    const v2 = widgetKind("v2");
    registry.add(v2);
    const v1 = registry.add(widgetKind("v1", asyncServed(v2, "v1", [])));
    assert.ok(v1 instanceof ConvertingStore);
    const obj = { apiVersion: "example.com/v2", metadata: { name: "a" } } as KubeObject;
    assert.throws(() => v1.toServedNow(obj), /asynchronous/);
    return Promise.resolve();
  });
});

Deno.test("ResourceRegistry serves a kind from itself: objects written at an older version read converted", async () => {
  await withTempStorage("converting_async_", async (s) => {
    // First the storage version is v1.
    const before = new ResourceRegistry({ storage: s.storage });
    const oldV1 = before.add(widgetKind("v1"));
    await oldV1.create("default", { metadata: { name: "old" }, spec: { size: 2 } } as KubeObject);
    // Then v2 is: it is served from itself, v1 from v2.
    const registry = new ResourceRegistry({ storage: s.storage });
    const calls: number[] = [];
    const v2Raw = widgetKind("v2");
    const v2 = registry.add(widgetKind("v2", asyncServed(v2Raw, "v2", calls)));
    const v1 = registry.add(widgetKind("v1", asyncServed(v2Raw, "v1", calls)));
    assert.ok(v2 instanceof ConvertingStore && v1 instanceof ConvertingStore);
    assert.equal(v1.storageStore, v2.storageStore, "v1 reads the stored form directly");
    assert.deepEqual(registry.storageStores(), [v2.storageStore]);
    assert.deepEqual(registry.all(), [v2, v1]);
    const got = await v2.get("default", "old");
    assert.equal(got.apiVersion, "example.com/v2");
    assert.deepEqual(got.spec, { dimensions: { size: 2 } });
    assert.deepEqual((await v1.get("default", "old")).spec, { size: 2 });
    // A write through v2 stores the v2 form.
    await v2.create("default", {
      metadata: { name: "new" },
      spec: { dimensions: { size: 7 } },
    } as KubeObject);
    const raw = await v2.storageStore.get("default", "new");
    assert.equal(raw.apiVersion, "example.com/v2");
    assert.deepEqual((await v1.get("default", "new")).spec, { size: 7 });
    const list = await v2.list("default", ALL);
    assert.deepEqual(list.items.map((o) => o.spec), [
      { dimensions: { size: 7 } },
      { dimensions: { size: 2 } },
    ]);
  });
});
