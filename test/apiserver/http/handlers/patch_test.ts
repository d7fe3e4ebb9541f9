import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../../../shared/api/schema/builtin_model.ts";
import type { ResourceContext } from "../../../../apiserver/http/context.ts";
import { handlePatch } from "../../../../apiserver/http/handlers/patch.ts";
import { patchAppliers } from "../../../../apiserver/http/patch_appliers.ts";
import { parseRequestInfo } from "../../../../apiserver/http/request_info.ts";
import { configMapKind } from "../../../../apiserver/registry/core/configmaps/strategy.ts";
import {
  type AdmissionAttributes,
  AdmissionChain,
} from "../../../../apiserver/registry/generic/admission.ts";
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  type KindDef,
} from "../../../../apiserver/registry/generic/kind.ts";
import { MAX_UPDATE_ATTEMPTS, Store } from "../../../../apiserver/registry/generic/store.ts";
import type { Storage } from "../../../../apiserver/storage/interface.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";
import { assertRejectsStatus } from "../../../support/assert_throws_status.ts";
import { testConn } from "../../../support/test_conn.ts";

const APPLIERS = patchAppliers(builtinSchemaModel());
const MERGE = "application/merge-patch+json";

/** A PATCH of configmap `name` in `default` as the handler receives it. */
function patchContext(store: Store, name: string, type: string, body: unknown): ResourceContext {
  const url = new URL(`https://localhost/api/v1/namespaces/default/configmaps/${name}`);
  const req = new Request(url, {
    method: "PATCH",
    headers: { "content-type": type },
    body: JSON.stringify(body),
  });
  return {
    req,
    conn: testConn(req),
    url,
    info: parseRequestInfo("PATCH", url),
    store,
    format: "json",
    warnings: [],
    patchAppliers: APPLIERS,
  };
}

function cm(name: string, data: Record<string, string>): KubeObject {
  return { metadata: { name }, data } as KubeObject;
}

/**
 * A store of `def` whose updates race `races` writes of another writer (a store over the same
 * storage without this admission plugin): each is committed during admission, after the
 * update read the object and before it writes.
 */
function racedStore(storage: Storage, def: KindDef, races: number) {
  const other = new Store(def, { storage });
  const state = { raced: 0 };
  const plugin = {
    name: "ConcurrentWriter",
    async admit(attrs: AdmissionAttributes) {
      if (attrs.operation !== "UPDATE" || state.raced >= races) return;
      state.raced++;
      await other.update("default", attrs.name, cm(attrs.name, { k: `other-${state.raced}` }));
    },
  };
  const store = new Store(def, { storage, admission: new AdmissionChain([plugin]) });
  return { store, state };
}

Deno.test("handlePatch() retries a patch that loses to a concurrent write", async () => {
  await withTempStorage("patch_handler_test_", async ({ storage }) => {
    const { store, state } = racedStore(storage, configMapKind, 1);
    await store.create("default", cm("a", { k: "1" }));
    const res = await handlePatch(patchContext(store, "a", MERGE, { data: { mine: "y" } }));
    assert.equal(res.status, 200);
    const out = await res.json() as KubeObject;
    assert.equal(state.raced, 1);
    // Applied again over the concurrent write: both changes are kept.
    assert.deepEqual(out.data, { k: "other-1", mine: "y" });
    assert.deepEqual((await store.get("default", "a")).data, out.data);
  });
});

Deno.test("handlePatch() gives up with 409 after a bounded number of lost writes", async () => {
  await withTempStorage("patch_handler_test_", async ({ storage }) => {
    const { store, state } = racedStore(storage, configMapKind, Infinity);
    await store.create("default", cm("a", { k: "1" }));
    await assertRejectsStatus(
      handlePatch(patchContext(store, "a", MERGE, { data: { mine: "y" } })),
      409,
      "Conflict",
    );
    assert.equal(state.raced, MAX_UPDATE_ATTEMPTS);
    assert.deepEqual((await store.get("default", "a")).data, { k: `other-${MAX_UPDATE_ATTEMPTS}` });
  });
});

Deno.test("handlePatch() answers 415 for a patch type the kind does not accept", async () => {
  await withTempStorage("patch_handler_test_", async ({ storage }) => {
    // A kind declared as custom resources are: no strategic merge patch.
    const def: KindDef = { ...configMapKind, patchTypes: CUSTOM_RESOURCE_PATCH_TYPES };
    const store = new Store(def, { storage });
    await store.create("default", cm("a", { k: "1" }));
    const err = await assertRejectsStatus(
      handlePatch(
        patchContext(store, "a", "application/strategic-merge-patch+json", { data: { k: "2" } }),
      ),
      415,
      "UnsupportedMediaType",
    );
    assert.equal(
      err.message,
      "the body of the request was in an unknown format - accepted media types include: " +
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    assert.deepEqual((await store.get("default", "a")).data, { k: "1" });
    // The types it accepts are served.
    const res = await handlePatch(patchContext(store, "a", MERGE, { data: { k: "3" } }));
    assert.equal(res.status, 200);
    // A built-in kind accepts all four.
    const builtin = new Store(configMapKind, { storage });
    const smp = await handlePatch(
      patchContext(builtin, "a", "application/strategic-merge-patch+json", { data: { k: "4" } }),
    );
    assert.equal(smp.status, 200);
    assert.deepEqual(((await smp.json()) as KubeObject).data, { k: "4" });
  });
});
