import assert from "node:assert/strict";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { namespaceLifecycle } from "../../../apiserver/admission/namespace_lifecycle.ts";
import { AdmissionChain } from "../../../apiserver/registry/generic/admission.ts";
import { Store } from "../../../apiserver/registry/generic/store.ts";
import { namespaceKind } from "../../../apiserver/registry/core/namespaces/strategy.ts";
import { configMapKind } from "../../../apiserver/registry/core/configmaps/strategy.ts";
import { LibsqlStorage } from "../../../apiserver/storage/libsql/libsql_storage.ts";
import { withTempStorage } from "../../support/registry_harness.ts";

const configMap = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
const namespace = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 201;
  } catch (err) {
    if (err instanceof StatusError) return err.code;
    throw err;
  }
}

Deno.test("namespaceLifecycle() follows namespaces created, terminating, deleted and recreated", async () => {
  await withTempStorage("namespace_lifecycle_", async ({ url, storage }) => {
    const other = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
    try {
      const namespaces = new Store(namespaceKind, { storage });
      const admission = new AdmissionChain([namespaceLifecycle(() => namespaces)]);
      const configMaps = new Store(configMapKind, { storage, admission });
      const create = (ns: string, name: string) => statusOf(configMaps.create(ns, configMap(name)));

      assert.equal(await create("a", "missing"), 404);
      await namespaces.create("", namespace("a"));
      assert.equal(await create("a", "one"), 201);
      assert.equal(await create("a", "two"), 201, "served from the index");

      // Deleting a namespace with the kubernetes finalizer marks it terminating.
      const { deleted } = await namespaces.delete("", "a");
      assert.equal(deleted, false);
      assert.equal(await create("a", "three"), 403);

      // Gone from storage: 404, never a stale "exists".
      await storage.delete(namespaces.key("", "a"), 0);
      assert.equal(await create("a", "four"), 404);
      await namespaces.create("", namespace("a"));
      assert.equal(await create("a", "five"), 201);

      // A namespace another instance created is found by reading storage.
      await new Store(namespaceKind, { storage: other }).create("", namespace("b"));
      assert.equal(await create("b", "one"), 201);
    } finally {
      await other.close();
    }
  });
});

Deno.test("namespaceLifecycle() refuses deleting the system namespaces", async (t) => {
  const plugin = namespaceLifecycle(() => {
    throw new Error("not needed");
  });
  for (const name of ["default", "kube-system", "kube-public"]) {
    await t.step(name, async () => {
      await assert.rejects(
        Promise.resolve(
          plugin.validate?.({
            operation: "DELETE",
            kind: namespaceKind,
            namespace: "",
            name,
            subresource: "",
            dryRun: false,
          }),
        ),
        (err) => err instanceof StatusError && err.code === 403,
      );
    });
  }
});
