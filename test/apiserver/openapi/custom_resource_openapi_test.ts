/**
 * customResourceSchema() and customResourceListSchema(): the schemas apiextensions-apiserver
 * publishes for a custom resource version, in v3 and stripped for v2.
 */
import assert from "node:assert/strict";
import {
  customResourceDefinitionName,
  customResourceListSchema,
  customResourceSchema,
} from "../../../apiserver/openapi/custom_resource_openapi.ts";
import type { JSONSchemaProps } from "../../../shared/api/apiextensions/v1/types.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const NAMES = { group: "stable.example.com", version: "v1", kind: "CronTab", plural: "crontabs" };
const OBJECT_META = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

const SCHEMA: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["cronSpec"],
      properties: {
        cronSpec: { type: "string", pattern: "^\\d+$", nullable: true },
        replicas: { "x-kubernetes-int-or-string": true },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
        extra: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { a: { type: "string" } },
        },
        choice: { type: "string", anyOf: [{ enum: ["a"] }, { enum: ["b"] }] },
      },
    },
  },
};

Deno.test("customResourceDefinitionName() reverses the group", () => {
  assert.equal(
    customResourceDefinitionName("stable.example.com", "v1", "CronTab"),
    "com.example.stable.v1.CronTab",
  );
});

Deno.test("customResourceSchema() publishes v3 with type meta, ObjectMeta and value validations", () => {
  const s = customResourceSchema(NAMES, SCHEMA, false) as Json;
  assert.deepEqual(Object.keys(s.properties), ["apiVersion", "kind", "metadata", "spec"]);
  assert.deepEqual(s.properties.metadata.allOf, [{ $ref: OBJECT_META }]);
  assert.deepEqual(
    s["x-kubernetes-group-version-kind"],
    [NAMES].map(({ group, kind, version }) => ({ group, kind, version })),
  );
  const spec = s.properties.spec;
  assert.deepEqual(spec.required, ["cronSpec"]);
  assert.equal(spec.properties.cronSpec.pattern, "^\\d+$");
  assert.equal(spec.properties.cronSpec.nullable, true);
  assert.deepEqual(spec.properties.replicas.anyOf, [{ type: "integer" }, { type: "string" }]);
  assert.equal(spec.properties.replicas["x-kubernetes-int-or-string"], true);
  const template = spec.properties.template;
  assert.deepEqual(Object.keys(template.properties), ["apiVersion", "kind", "metadata"]);
  assert.deepEqual(template.required, ["kind", "apiVersion"]);
  assert.equal(spec.properties.choice.anyOf.length, 2);
});

Deno.test("customResourceSchema() strips for v2 what v2 cannot say", () => {
  const s = customResourceSchema(NAMES, SCHEMA, true) as Json;
  const spec = s.properties.spec;
  assert.equal(spec.required, undefined);
  assert.equal(spec.properties.cronSpec.pattern, undefined);
  assert.equal(spec.properties.cronSpec.nullable, undefined);
  assert.equal(spec.properties.cronSpec.type, "string");
  assert.equal(spec.properties.replicas.anyOf, undefined);
  // Preserving unknown fields: no properties, no object type, no embedded type meta in v2.
  assert.deepEqual(spec.properties.extra, { "x-kubernetes-preserve-unknown-fields": true });
  assert.equal(spec.properties.template.properties, undefined);
  assert.equal(spec.properties.choice.anyOf, undefined);
  const open = customResourceSchema(NAMES, {
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
  }, true);
  assert.deepEqual(open, {
    type: "object",
    "x-kubernetes-group-version-kind": [{
      group: "stable.example.com",
      kind: "CronTab",
      version: "v1",
    }],
    "x-kubernetes-selectable-fields": [],
  });
});

Deno.test("customResourceSchema() lists the version's selectable fields", () => {
  const names = { ...NAMES, strategy: { selectableFieldNames: [".spec.cronSpec", "spec.image"] } };
  const fields = [{ fieldPath: "spec.cronSpec" }, { fieldPath: "spec.image" }];
  assert.deepEqual(
    (customResourceSchema(names, SCHEMA, false) as Json)["x-kubernetes-selectable-fields"],
    fields,
  );
  assert.deepEqual(customResourceListSchema(names)["x-kubernetes-selectable-fields"], fields);
});

Deno.test("customResourceListSchema() is the List with items of the kind", () => {
  const l = customResourceListSchema(NAMES) as Json;
  assert.equal(l.description, "CronTabList is a list of CronTab");
  assert.deepEqual(l.required, ["items"]);
  assert.equal(l.properties.items.items.$ref, "#/components/schemas/com.example.stable.v1.CronTab");
  assert.match(l.properties.items.description, /^List of crontabs\. More info: /);
  assert.deepEqual(l["x-kubernetes-group-version-kind"], [
    { group: "stable.example.com", kind: "CronTabList", version: "v1" },
  ]);
});
