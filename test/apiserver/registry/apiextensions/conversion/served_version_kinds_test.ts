import assert from "node:assert/strict";
import { customResourceConverter } from "../../../../../apiserver/registry/apiextensions/conversion/custom_resource_converter.ts";
import { servedVersionKinds } from "../../../../../apiserver/registry/apiextensions/conversion/served_version_kinds.ts";
import { ConvertingStore } from "../../../../../apiserver/registry/generic/converting_store.ts";
import { ResourceRegistry } from "../../../../../apiserver/registry/resource_registry.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { withTempStorage } from "../../../../support/registry_harness.ts";
import { crdOf, widgetKind } from "../../../../support/widget_versions.ts";

Deno.test("servedVersionKinds() serves the storage version from itself, first, and warns on deprecated ones", () => {
  const crd = crdOf({ strategy: "None" });
  const kinds = servedVersionKinds(crd, customResourceConverter(crd), widgetKind);
  assert.equal(kinds.unservedStorage, undefined);
  assert.deepEqual(
    kinds.served.map((d) => [d.version, d.servedFrom?.storage.version, d.deprecationWarning]),
    [
      ["v2", "v2", undefined],
      ["v1", "v2", "example.com/v1 Widget is deprecated; use example.com/v2 Widget"],
    ],
  );
});

Deno.test("servedVersionKinds() with an unserved storage version: the registry holds it without serving it", async () => {
  await withTempStorage("served_version_kinds_", async (s) => {
    const crd = crdOf({ strategy: "None" });
    crd.spec.versions[1].served = false;
    const kinds = servedVersionKinds(crd, customResourceConverter(crd), widgetKind);
    assert.equal(kinds.unservedStorage?.version, "v2");
    assert.deepEqual(kinds.served.map((d) => d.version), ["v1"]);
    const registry = new ResourceRegistry({ storage: s.storage });
    const stored = registry.addUnserved(kinds.unservedStorage!);
    const v1 = registry.add(kinds.served[0]);
    assert.ok(v1 instanceof ConvertingStore);
    assert.equal(v1.storageStore, stored);
    assert.equal(registry.lookup("example.com", "v2", "widgets"), undefined, "v2 is not served");
    assert.deepEqual(registry.storageStores().filter((x) => x.def.group === "example.com"), [
      stored,
    ]);
    const created = await v1.create("default", { metadata: { name: "a" }, spec: {} } as KubeObject);
    assert.equal(created.apiVersion, "example.com/v1");
    assert.equal((await stored.get("default", "a")).apiVersion, "example.com/v2");
    // Once v2 is served, its store replaces the unserved one.
    registry.add(widgetKind("v2"));
    assert.deepEqual(
      registry.storageStores().filter((x) => x.def.group === "example.com").map((x) =>
        x.def.version
      ),
      ["v2"],
    );
  });
});
