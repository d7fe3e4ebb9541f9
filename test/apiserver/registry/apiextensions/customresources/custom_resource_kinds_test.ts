import assert from "node:assert/strict";
import type { CustomResourceDefinition } from "../../../../../shared/api/apiextensions/v1/types.ts";
import { customResourceKinds } from "../../../../../apiserver/registry/apiextensions/customresources/custom_resource_kinds.ts";
import { CUSTOM_RESOURCE_PATCH_TYPES } from "../../../../../apiserver/registry/generic/kind.ts";
import { StatusError } from "../../../../../shared/errors/status_error.ts";

const SCHEMA = { type: "object", properties: { spec: { type: "object" } } };

function crd(): CustomResourceDefinition {
  return {
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Cluster",
      names: { plural: "widgets", kind: "Widget", shortNames: ["wd"], categories: ["all"] },
      versions: [
        { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: SCHEMA } },
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: SCHEMA },
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.r", statusReplicasPath: ".status.r" },
          },
        },
        { name: "v0", served: false, storage: false },
      ],
    },
  };
}

Deno.test("customResourceKinds() declares the storage version first, then the served ones", () => {
  const kinds = customResourceKinds(crd());
  assert.equal(kinds.unservedStorage, undefined);
  assert.deepEqual(kinds.served.map((k) => k.version), ["v1", "v1beta1"]);
  const [stored, beta] = kinds.served;
  assert.equal(stored.kind, "Widget");
  assert.equal(stored.singular, "widget");
  assert.equal(stored.namespaced, false);
  assert.deepEqual(stored.shortNames, ["wd"]);
  assert.deepEqual(stored.categories, ["all"]);
  assert.equal(stored.patchTypes, CUSTOM_RESOURCE_PATCH_TYPES);
  assert.equal(stored.returnDeletedObject, true);
  assert.deepEqual(stored.customResourceSchema, SCHEMA);
  assert.deepEqual(stored.subresources?.map((s) => s.name), ["status", "scale"]);
  assert.equal(stored.servedFrom?.storage.version, "v1", "served from itself");
  assert.equal(beta.servedFrom?.storage.version, "v1");
  assert.deepEqual(beta.subresources, []);
});

Deno.test("customResourceKinds() registers a storage version that is not served as unserved", () => {
  const def = crd();
  def.spec.versions[1].served = false;
  const kinds = customResourceKinds(def);
  assert.equal(kinds.unservedStorage?.version, "v1");
  assert.deepEqual(kinds.served.map((k) => k.version), ["v1beta1"]);
});

Deno.test("a custom resource strategy strips status on create and refuses creates while terminating", () => {
  const [stored] = customResourceKinds(crd()).served;
  const obj = { metadata: { name: "a" }, spec: {}, status: { r: 1 } };
  stored.strategy.prepareForCreate!(obj);
  assert.equal(obj.status, undefined);
  const [terminating] = customResourceKinds(crd(), { terminating: true }).served;
  assert.throws(
    () => terminating.strategy.prepareForCreate!({ metadata: { name: "b" } }),
    (e: unknown) =>
      e instanceof StatusError && e.code === 405 &&
      e.status.message === "create not allowed while custom resource definition is terminating",
  );
});
