/**
 * End-to-end over HTTPS for what a custom resource kind's schema (`KindDef.customResourceSchema`)
 * drives in this server: server-side apply (list-map items shared by two managers, conflicts),
 * the OpenAPI v2 and v3 documents (new ETags and hashes as kinds come and go) and kubectl
 * explain. The kind is registered directly in the registry, as the CRD controller would.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import type { Json } from "./_watch_helpers.ts";
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  type KindDef,
} from "../../apiserver/registry/generic/kind.ts";
import type { JSONSchemaProps } from "../../shared/api/apiextensions/v1/types.ts";

const GADGETS = "/apis/stable.example.com/v1/namespaces/default/gadgets";
const APPLY = "application/apply-patch+yaml";

/** The schema of stable.example.com/v1 Gadget. */
export const GADGET_SCHEMA: JSONSchemaProps = {
  type: "object",
  description: "A gadget of the test suite.",
  properties: {
    spec: {
      type: "object",
      description: "What the gadget should be.",
      properties: {
        color: { type: "string", description: "The gadget's color." },
        ports: {
          type: "array",
          description: "Ports by name.",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, port: { type: "integer" } },
          },
        },
        tags: { type: "array", items: { type: "string" } },
        labels: {
          type: "object",
          additionalProperties: { type: "string" },
        },
      },
    },
    status: { type: "object", properties: { ready: { type: "boolean" } } },
  },
};

/** The Gadget kind as the CRD controller registers it. */
export function gadgetKind(): KindDef {
  return {
    group: "stable.example.com",
    version: "v1",
    kind: "Gadget",
    plural: "gadgets",
    singular: "gadget",
    shortNames: ["gd"],
    namespaced: true,
    patchTypes: CUSTOM_RESOURCE_PATCH_TYPES,
    returnDeletedObject: true,
    customResourceSchema: GADGET_SCHEMA,
    strategy: { validate: () => [] },
  };
}

async function withGadgets(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
  try {
    t.server.registry.add(gadgetKind());
    await fn(t);
  } finally {
    await t.close();
  }
}

async function apply(t: TestServer, manager: string, body: Json, force = false) {
  const res = await t.fetch(`${GADGETS}/g1?fieldManager=${manager}${force ? "&force=true" : ""}`, {
    method: "PATCH",
    headers: { "content-type": APPLY },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

function gadget(spec: Json): Json {
  return { apiVersion: "stable.example.com/v1", kind: "Gadget", metadata: { name: "g1" }, spec };
}

Deno.test("server-side apply of a custom resource shares list-map items between managers", async () => {
  await withGadgets(async (t) => {
    const a = await apply(
      t,
      "alice",
      gadget({ color: "red", ports: [{ name: "http", port: 80 }] }),
    );
    assert.equal(a.status, 201, JSON.stringify(a.body));
    const b = await apply(t, "bob", gadget({ ports: [{ name: "https", port: 443 }] }));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.deepEqual(b.body.spec.ports, [{ name: "http", port: 80 }, { name: "https", port: 443 }]);
    assert.equal(b.body.spec.color, "red");
    const managers = b.body.metadata.managedFields.map((m: Json) => m.manager).sort();
    assert.deepEqual(managers, ["alice", "bob"]);
    const bobFields = JSON.stringify(
      b.body.metadata.managedFields.find((m: Json) => m.manager === "bob").fieldsV1,
    );
    assert.match(bobFields, /"k:\{\\"name\\":\\"https\\"\}"/);

    // alice drops her item; bob's stays.
    const a2 = await apply(t, "alice", gadget({ color: "red" }));
    assert.deepEqual(a2.body.spec.ports, [{ name: "https", port: 443 }]);

    // A list without markers is atomic: bob taking it over conflicts with alice.
    await apply(t, "alice", gadget({ color: "red", tags: ["a"] }));
    const conflict = await apply(t, "bob", gadget({ tags: ["b"], color: "blue" }));
    assert.equal(conflict.status, 409, JSON.stringify(conflict.body));
    assert.equal(conflict.body.reason, "Conflict");
    assert.match(conflict.body.message, /^Apply failed with 2 conflicts: conflicts with "alice"/);
    const fields = conflict.body.details.causes.map((c: Json) => c.field).sort();
    assert.deepEqual(fields, [".spec.color", ".spec.tags"]);
    const forced = await apply(t, "bob", gadget({ tags: ["b"], color: "blue" }), true);
    assert.equal(forced.status, 200);
    assert.deepEqual(forced.body.spec.tags, ["b"]);
  });
});

Deno.test("OpenAPI v3 and v2 publish a custom resource kind's schema as it comes and goes", async () => {
  const t = await startTestServer();
  try {
    const index0 = await (await t.fetch("/openapi/v3")).json();
    assert.equal(index0.paths["apis/stable.example.com/v1"], undefined);
    const v2etag0 = (await t.fetch("/openapi/v2")).headers.get("etag");
    t.server.registry.add(gadgetKind());

    const index = await (await t.fetch("/openapi/v3")).json();
    const url = index.paths["apis/stable.example.com/v1"].serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/stable.example.com\/v1\?hash=[0-9A-F]{128}$/);
    const doc = await (await t.fetch(url)).json();
    const schemas = doc.components.schemas;
    const g = schemas["com.example.stable.v1.Gadget"];
    assert.deepEqual(g["x-kubernetes-group-version-kind"], [
      { group: "stable.example.com", kind: "Gadget", version: "v1" },
    ]);
    assert.deepEqual(Object.keys(g.properties), [
      "apiVersion",
      "kind",
      "metadata",
      "spec",
      "status",
    ]);
    assert.deepEqual(g.properties.metadata.allOf, [
      { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" },
    ]);
    assert.equal(g.properties.spec.properties.ports["x-kubernetes-list-type"], "map");
    assert.deepEqual(g.properties.spec.properties.ports.items.required, ["name"]);
    assert.ok(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]);
    const list = schemas["com.example.stable.v1.GadgetList"];
    assert.equal(
      list.properties.items.items.$ref,
      "#/components/schemas/com.example.stable.v1.Gadget",
    );
    const item = doc.paths["/apis/stable.example.com/v1/namespaces/{namespace}/gadgets/{name}"];
    assert.deepEqual(Object.keys(item.patch.requestBody.content), [
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
    ]);
    assert.equal(
      item.get.responses["200"].content["application/json"].schema.$ref,
      "#/components/schemas/com.example.stable.v1.Gadget",
    );

    const v2res = await t.fetch("/openapi/v2");
    assert.notEqual(v2res.headers.get("etag"), v2etag0);
    const v2 = await v2res.json();
    const d = v2.definitions["com.example.stable.v1.Gadget"];
    assert.equal(
      d.properties.metadata.$ref,
      "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    );
    // v2 strips value validations (required included).
    assert.equal(d.properties.spec.properties.ports.items.required, undefined);
    assert.ok(v2.paths["/apis/stable.example.com/v1/namespaces/{namespace}/gadgets"]);
    const proto = await t.fetch("/openapi/v2", {
      headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
    });
    assert.equal(proto.status, 200);
    const bytes = new Uint8Array(await proto.arrayBuffer());
    assert.ok(new TextDecoder().decode(bytes).includes("com.example.stable.v1.Gadget"));
  } finally {
    await t.close();
  }
});

Deno.test({
  name: "kubectl explain a custom resource kind and its fields",
  ignore: skipWithoutKubectl("kubectl explain of custom resources"),
  fn: async () => {
    await withGadgets(async (t) => {
      const k = kubectlFor(t);
      const top = ok(await kubectl(k, ["explain", "gadgets"]));
      assert.match(top, /GROUP:\s+stable.example.com/);
      assert.match(top, /KIND:\s+Gadget/);
      assert.match(top, /A gadget of the test suite\./);
      assert.match(top, /spec\s+<Object>/);
      const ports = ok(await kubectl(k, ["explain", "gadgets.spec.ports"]));
      assert.match(ports, /FIELD:\s+ports <\[\]Object>/);
      assert.match(ports, /Ports by name\./);
      assert.match(ports, /name\s+<string> -required-/);
      const color = ok(await kubectl(k, ["explain", "gd.spec.color"]));
      assert.match(color, /The gadget's color\./);
    });
  },
});
