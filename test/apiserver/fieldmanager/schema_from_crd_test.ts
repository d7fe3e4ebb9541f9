/**
 * customResourceKindSchema(): the ownership types structured-merge-diff gives a CRD's schema.
 */
import assert from "node:assert/strict";
import { customResourceKindSchema } from "../../../apiserver/fieldmanager/schema_from_crd.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import type { JSONSchemaProps } from "../../../shared/api/apiextensions/v1/types.ts";

const SCHEMA: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "protocol"],
          items: {
            type: "object",
            properties: { name: { type: "string" }, protocol: { type: "string", default: "TCP" } },
          },
        },
        tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        plain: { type: "array", items: { type: "string" } },
        selector: {
          type: "object",
          "x-kubernetes-map-type": "atomic",
          additionalProperties: { type: "string" },
        },
        size: { "x-kubernetes-int-or-string": true },
        anything: { "x-kubernetes-preserve-unknown-fields": true },
        pod: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          properties: { spec: { type: "object" } },
        },
      },
    },
  },
};

Deno.test("customResourceKindSchema() types lists, maps, scalars and embedded resources as SMD does", () => {
  const { schema, root } = customResourceKindSchema(builtinSchemaModel(), SCHEMA);
  const rootMap = schema.resolve(root).map!;
  assert.deepEqual(rootMap.fields!.map((f) => f.name), ["apiVersion", "kind", "metadata", "spec"]);
  assert.deepEqual(schema.field(rootMap, "metadata")!.type, { namedType: "meta.v1.ObjectMeta" });
  const spec = schema.resolve(schema.field(rootMap, "spec")!.type).map!;
  const t = (name: string) => schema.resolve(schema.field(spec, name)!.type);
  const ports = t("ports").list!;
  assert.equal(ports.elementRelationship, "associative");
  assert.deepEqual(ports.keys, ["name", "protocol"]);
  assert.equal(schema.field(ports.elementType.map!, "protocol")!.default, "TCP");
  assert.deepEqual(t("tags").list, {
    elementType: { scalar: "string" },
    elementRelationship: "associative",
  });
  assert.equal(t("plain").list!.elementRelationship, "atomic");
  assert.equal(t("selector").map!.elementRelationship, "atomic");
  assert.deepEqual(t("selector").map!.elementType, { scalar: "string" });
  assert.equal(t("size").scalar, "untyped");
  assert.equal(schema.field(spec, "anything")!.type.namedType, "__untyped_deduced_");
  const pod = t("pod").map!;
  assert.deepEqual(pod.fields!.map((f) => f.name), ["apiVersion", "kind", "metadata", "spec"]);
  assert.strictEqual(
    customResourceKindSchema(builtinSchemaModel(), SCHEMA).schema,
    schema,
    "cached",
  );
});
