import assert from "node:assert";
import { validateStructural } from "../../../../../apiserver/registry/apiextensions/schema/structural.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

const P = "openAPIV3Schema";
const messages = (s: JSONSchemaProps) => validateStructural(s, P).map(fieldErrorMessage);

Deno.test("validateStructural() accepts structural schemas", () => {
  const ok: JSONSchemaProps[] = [
    { type: "object" },
    {
      type: "object",
      properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
    },
    { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    { type: "object", properties: { p: { "x-kubernetes-int-or-string": true } } },
    {
      type: "object",
      properties: {
        p: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
      },
    },
    {
      type: "object",
      properties: {
        p: {
          "x-kubernetes-int-or-string": true,
          allOf: [{ anyOf: [{ type: "integer" }, { type: "string" }] }, { pattern: "^a" }],
        },
      },
    },
    {
      type: "object",
      properties: { metadata: { type: "object", properties: { name: { type: "string" } } } },
    },
    {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      anyOf: [{ required: ["a"] }, { required: ["b"] }],
    },
    {
      type: "object",
      properties: {
        e: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
      },
    },
  ];
  for (const s of ok) assert.deepStrictEqual(messages(s), [], JSON.stringify(s));
});

Deno.test("validateStructural() requires types where data lives", () => {
  assert.deepStrictEqual(messages({}), [
    "openAPIV3Schema.type: Required value: must not be empty at the root",
  ]);
  assert.deepStrictEqual(messages({ type: "string" }), [
    'openAPIV3Schema.type: Invalid value: "string": must be object at the root',
  ]);
  assert.deepStrictEqual(
    messages({ type: "object", properties: { a: {}, l: { type: "array", items: {} } } }),
    [
      "openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
      "openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified array items",
    ],
  );
  assert.deepStrictEqual(messages({ type: "object", properties: { l: { type: "array" } } }), [
    "openAPIV3Schema.properties[l].items: Required value: must be specified",
  ]);
  assert.deepStrictEqual(
    messages({ type: "object", additionalProperties: { type: "string" } }),
    ["openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"],
  );
});

Deno.test("validateStructural() restricts value validations to what the structure declares", () => {
  const s: JSONSchemaProps = {
    type: "object",
    properties: { a: { type: "string" } },
    allOf: [{
      type: "object",
      description: "d",
      default: {},
      nullable: true,
      properties: { b: { type: "string" }, metadata: {} },
      "x-kubernetes-preserve-unknown-fields": true,
      "x-kubernetes-list-type": "set",
      "x-kubernetes-validations": [{ rule: "true" }],
    }],
    not: { items: { type: "string" } },
  };
  assert.deepStrictEqual(messages(s), [
    "openAPIV3Schema.allOf[0].default: Forbidden: must be undefined to be structural",
    "openAPIV3Schema.allOf[0].description: Forbidden: must be empty to be structural",
    "openAPIV3Schema.allOf[0].nullable: Forbidden: must be false to be structural",
    "openAPIV3Schema.allOf[0].properties[b].type: Forbidden: must be empty to be structural",
    "openAPIV3Schema.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
    "openAPIV3Schema.allOf[0].type: Forbidden: must be empty to be structural",
    "openAPIV3Schema.allOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural",
    "openAPIV3Schema.allOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural",
    "openAPIV3Schema.allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural",
    "openAPIV3Schema.items: Required value: because it is defined in openAPIV3Schema.not.items",
    "openAPIV3Schema.not.items.type: Forbidden: must be empty to be structural",
    "openAPIV3Schema.properties[b]: Required value: because it is defined in openAPIV3Schema.allOf[0].properties[b]",
    "openAPIV3Schema.properties[metadata]: Required value: because it is defined in openAPIV3Schema.allOf[0].properties[metadata]",
  ]);
});

Deno.test("validateStructural() checks the x-kubernetes extensions and metadata", () => {
  const s: JSONSchemaProps = {
    type: "object",
    properties: {
      metadata: { type: "object", properties: { labels: { type: "object" } } },
      ios: {
        "x-kubernetes-int-or-string": true,
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-embedded-resource": true,
      },
      e: { type: "object", "x-kubernetes-embedded-resource": true },
      e2: {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
        properties: { kind: { type: "integer" }, metadata: { type: "string" } },
      },
      p: { type: "string", pattern: "(" },
    },
  };
  assert.deepStrictEqual(messages(s), [
    'openAPIV3Schema.properties[e2].properties[kind].type: Invalid value: "integer": must be string',
    'openAPIV3Schema.properties[e2].properties[metadata].type: Invalid value: "string": must be object',
    "openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
    "openAPIV3Schema.properties[ios].type: Required value: must be object if x-kubernetes-embedded-resource is true",
    "openAPIV3Schema.properties[ios].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
    "openAPIV3Schema.properties[ios].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
    "openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
    'openAPIV3Schema.properties[p].pattern: Invalid value: "(": must be a valid regular expression, but isn\'t: error parsing regexp: missing closing ): `(`',
  ]);
});
