import assert from "node:assert/strict";
import { buildOpenApiV3 } from "../../../apiserver/openapi/openapi_v3.ts";
import { BUILTIN_KINDS } from "../../../apiserver/registry/builtin_kinds.ts";
import { ALL_VERBS } from "../../../apiserver/registry/generic/kind.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";

// deno-lint-ignore no-explicit-any
type J = Record<string, any>;

Deno.test("buildOpenApiV3() describes every path, operation and schema of api/v1", () => {
  const kinds = BUILTIN_KINDS.filter((k) => k.group === "" && k.version === "v1");
  const doc = buildOpenApiV3(builtinSchemaModel(), "", "v1", kinds, new Set(ALL_VERBS)) as J;
  assert.equal(doc.openapi, "3.0.0");
  const podPath = doc.paths["/api/v1/namespaces/{namespace}/pods/{name}"];
  for (const m of ["get", "put", "patch", "delete"]) assert.ok(podPath[m], m);
  assert.deepEqual(podPath.patch["x-kubernetes-group-version-kind"], {
    group: "",
    version: "v1",
    kind: "Pod",
  });
  assert.equal(podPath.patch["x-kubernetes-action"], "patch");
  const names = (op: J) => op.parameters.map((p: J) => p.name);
  for (const p of ["dryRun", "fieldManager", "fieldValidation", "force"]) {
    assert.ok(names(podPath.patch).includes(p), p);
  }
  const coll = doc.paths["/api/v1/namespaces/{namespace}/pods"];
  assert.ok(names(coll.post).includes("fieldValidation"));
  assert.equal(coll.get.operationId, "listCoreV1NamespacedPod");
  assert.ok(doc.paths["/api/v1/pods"].get);
  assert.ok(doc.paths["/api/v1/namespaces/{namespace}/pods/{name}/status"].put);
  assert.ok(doc.paths["/api/v1/nodes/{name}"].get);
  const schemas = doc.components.schemas;
  const pod = schemas["io.k8s.api.core.v1.Pod"];
  assert.deepEqual(pod["x-kubernetes-group-version-kind"], [{
    group: "",
    version: "v1",
    kind: "Pod",
  }]);
  const containers = schemas["io.k8s.api.core.v1.PodSpec"].properties.containers;
  assert.equal(containers["x-kubernetes-list-type"], "map");
  assert.deepEqual(containers["x-kubernetes-list-map-keys"], ["name"]);
  assert.equal(containers["x-kubernetes-patch-strategy"], "merge");
  assert.equal(containers["x-kubernetes-patch-merge-key"], "name");
  assert.deepEqual(containers.items, { $ref: "#/components/schemas/io.k8s.api.core.v1.Container" });
  assert.deepEqual(schemas["io.k8s.api.core.v1.PodSpec"].required, ["containers"]);
  assert.equal(schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"].format, "int-or-string");
  assert.equal(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.Time"].format, "date-time");
  // Every $ref resolves.
  const text = JSON.stringify(doc);
  for (const m of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
    assert.ok(schemas[m[1]], m[1]);
  }
});
