import assert from "node:assert/strict";
import { buildOpenApiV2, schemaToV2 } from "../../../apiserver/openapi/openapi_v2.ts";
import { encodeOpenApiV2Proto } from "../../../apiserver/openapi/openapi_v2_proto.ts";
import { negotiate } from "../../../apiserver/openapi/openapi_v2_handler.ts";
import { BUILTIN_KINDS } from "../../../apiserver/registry/builtin_kinds.ts";
import { ALL_VERBS } from "../../../apiserver/registry/generic/kind.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import { decodeOpenApiV2Proto } from "../../support/openapi_v2_proto_decode.ts";
import { v2ProtoDocumentToJson } from "../../support/openapi_v2_proto_json.ts";

// deno-lint-ignore no-explicit-any
type J = Record<string, any>;

async function builtinV2(): Promise<J> {
  return await buildOpenApiV2(builtinSchemaModel(), BUILTIN_KINDS, new Set(ALL_VERBS)) as J;
}

Deno.test("buildOpenApiV2() covers every served kind with its paths and definitions", async () => {
  const doc = await builtinV2();
  assert.equal(doc.swagger, "2.0");
  assert.deepEqual(doc.security, [{ BearerToken: [] }]);
  const model = builtinSchemaModel();
  for (const k of BUILTIN_KINDS) {
    const group = k.group === "" ? "core" : k.group.replace(/\.k8s\.io$/, "");
    const name = model.kind(k.group, k.version, k.kind)?.openApiName ??
      `io.k8s.api.${group}.${k.version}.${k.kind}`;
    const def = doc.definitions[name];
    assert.ok(def, name);
    assert.ok(
      def["x-kubernetes-group-version-kind"].some((g: J) =>
        g.group === k.group && g.version === k.version && g.kind === k.kind
      ),
      name,
    );
    const prefix = k.group === "" ? `/api/${k.version}` : `/apis/${k.group}/${k.version}`;
    const coll = k.namespaced
      ? `${prefix}/namespaces/{namespace}/${k.plural}`
      : `${prefix}/${k.plural}`;
    const verbs = k.verbs ?? ALL_VERBS;
    if (verbs.includes("create")) assert.ok(doc.paths[coll]?.post, `${coll} post`);
    if (verbs.includes("get")) assert.ok(doc.paths[`${coll}/{name}`]?.get, `${coll}/{name} get`);
  }
  const text = JSON.stringify(doc);
  assert.ok(!text.includes("#/components/"));
  for (const m of text.matchAll(/"#\/definitions\/([^"]+)"/g)) {
    assert.ok(doc.definitions[m[1]], m[1]);
  }
});

Deno.test("buildOpenApiV2() writes definitions, parameters and responses as Swagger 2.0 does", async () => {
  const doc = await builtinV2();
  const spec = doc.definitions["io.k8s.api.apps.v1.DeploymentSpec"];
  assert.deepEqual(spec.required, ["selector", "template"]);
  assert.equal(spec.properties.template.$ref, "#/definitions/io.k8s.api.core.v1.PodTemplateSpec");
  assert.equal(spec.properties.strategy["x-kubernetes-patch-strategy"], "retainKeys");
  assert.equal(spec.properties.strategy.allOf, undefined);
  const containers = doc.definitions["io.k8s.api.core.v1.PodSpec"].properties.containers;
  assert.equal(containers["x-kubernetes-patch-merge-key"], "name");
  assert.equal(containers["x-kubernetes-patch-strategy"], "merge");
  assert.equal(containers["x-kubernetes-list-type"], "map");
  assert.deepEqual(containers["x-kubernetes-list-map-keys"], ["name"]);
  assert.deepEqual(containers.items, { $ref: "#/definitions/io.k8s.api.core.v1.Container" });
  assert.deepEqual(
    doc.definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"].format,
    "int-or-string",
  );
  const coll = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments"];
  assert.deepEqual(coll.post.parameters[0], {
    name: "body",
    in: "body",
    required: true,
    schema: { $ref: "#/definitions/io.k8s.api.apps.v1.Deployment" },
  });
  const dryRun = coll.post.parameters.find((p: J) => p.name === "dryRun");
  assert.deepEqual({ type: dryRun.type, in: dryRun.in, schema: dryRun.schema }, {
    type: "string",
    in: "query",
    schema: undefined,
  });
  assert.deepEqual(coll.post.consumes, ["*/*"]);
  assert.deepEqual(coll.post.schemes, ["https"]);
  assert.equal(
    coll.post.responses["201"].schema.$ref,
    "#/definitions/io.k8s.api.apps.v1.Deployment",
  );
  assert.equal(coll.post["x-kubernetes-action"], "post");
  assert.deepEqual(coll.post["x-kubernetes-group-version-kind"], {
    group: "apps",
    version: "v1",
    kind: "Deployment",
  });
  assert.ok(coll.get.produces.includes("application/json;stream=watch"));
  assert.equal(coll.get.operationId, "listAppsV1NamespacedDeployment");
  const patch = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].patch;
  assert.ok(patch.consumes.includes("application/strategic-merge-patch+json"));
  assert.deepEqual(patch.parameters[0].schema, {
    $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
  });
  assert.ok(doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"].put);
  assert.ok(doc.paths["/api/v1/pods"].get);
  assert.equal(doc.paths["/apis/"].get.operationId, "getAPIVersions");
  assert.equal(doc.paths["/api/"].get.operationId, "getCoreAPIVersions");
  assert.equal(
    doc.paths["/apis/rbac.authorization.k8s.io/"].get.operationId,
    "getRbacAuthorizationAPIGroup",
  );
  assert.equal(
    doc.paths["/apis/apps/"].get.responses["200"].schema.$ref,
    "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup",
  );
});

Deno.test("schemaToV2() turns a described reference into a $ref beside its description", () => {
  assert.deepEqual(
    schemaToV2({ description: "d", allOf: [{ $ref: "#/components/schemas/X" }], default: {} }),
    { description: "d", $ref: "#/definitions/X", default: {} },
  );
  assert.deepEqual(
    schemaToV2({ type: "object", additionalProperties: { $ref: "#/components/schemas/Y" } }),
    { type: "object", additionalProperties: { $ref: "#/definitions/Y" } },
  );
});

Deno.test("encodeOpenApiV2Proto() decodes (with protobufjs over gnostic's messages) to the JSON document", async () => {
  const doc = await builtinV2();
  const back = v2ProtoDocumentToJson(decodeOpenApiV2Proto(encodeOpenApiV2Proto(doc)));
  assert.equal(back.swagger, "2.0");
  assert.deepEqual(back.info, doc.info);
  assert.deepEqual(back.securityDefinitions, doc.securityDefinitions);
  assert.deepEqual(back.security, doc.security);
  assert.deepEqual(Object.keys(back.definitions), Object.keys(doc.definitions));
  for (const name of Object.keys(doc.definitions)) {
    assert.deepEqual(back.definitions[name], doc.definitions[name], name);
  }
  assert.deepEqual(Object.keys(back.paths), Object.keys(doc.paths));
  for (const p of Object.keys(doc.paths)) assert.deepEqual(back.paths[p], doc.paths[p], p);
});

Deno.test("negotiate() picks the first acceptable form by quality, as kube-openapi does", () => {
  assert.equal(negotiate(null), "json");
  assert.equal(negotiate("application/json"), "json");
  assert.equal(negotiate("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"), "proto");
  assert.equal(negotiate("application/com.github.proto-openapi.spec.v2.v1.0+protobuf"), "proto");
  assert.equal(
    negotiate("application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf"),
    "proto",
  );
  assert.equal(negotiate("*/*"), "json");
  assert.equal(negotiate("text/html"), undefined);
  assert.equal(negotiate("application/json;q=0"), undefined);
});
