import assert from "node:assert";
import { compileCustomResourceSchema } from "../../../../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

const BLOCKED =
  '<nil>: Invalid value: "": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

function run(schema: JSONSchemaProps, spec: unknown, oldSpec?: unknown): string[] {
  const c = compileCustomResourceSchema({ type: "object", properties: { spec: schema } });
  const o = {
    apiVersion: "a/v1",
    kind: "K",
    metadata: { name: "x" },
    spec,
  } as unknown as KubeObject;
  const old = oldSpec === undefined ? undefined : {
    apiVersion: "a/v1",
    kind: "K",
    metadata: { name: "x" },
    spec: oldSpec,
  } as unknown as KubeObject;
  return c.validate(o, old).map(fieldErrorMessage);
}

const VALUE_ROWS: [string, JSONSchemaProps, unknown, string[]][] = [
  ["type", { type: "integer" }, "x", [
    'spec: Invalid value: "x": spec in body must be of type integer: "string"',
    BLOCKED,
  ]],
  ["integer vs number", { type: "integer" }, 1.5, [
    'spec: Invalid value: 1.5: spec in body must be of type integer: "number"',
    BLOCKED,
  ]],
  ["null not nullable", { type: "string" }, null, [
    'spec: Invalid value: "null": spec in body must be of type string: "null"',
    BLOCKED,
  ]],
  ["null nullable", { type: "string", nullable: true }, null, []],
  ["int-or-string", { "x-kubernetes-int-or-string": true }, true, [
    'spec: Invalid value: true: spec in body must be of type integer,string: "boolean"',
    BLOCKED,
  ]],
  ["int-or-string ok", { "x-kubernetes-int-or-string": true }, "50%", []],
  ["minimum", { type: "integer", minimum: 2 }, 1, [
    "spec: Invalid value: 1: spec in body should be greater than or equal to 2",
  ]],
  ["exclusiveMaximum", { type: "number", maximum: 2, exclusiveMaximum: true }, 2, [
    "spec: Invalid value: 2: spec in body should be less than 2",
  ]],
  ["multipleOf", { type: "integer", multipleOf: 3 }, 4, [
    "spec: Invalid value: 4: spec in body should be a multiple of 3",
  ]],
  ["maxLength counts characters", { type: "string", maxLength: 2 }, "éé", []],
  ["maxLength", { type: "string", maxLength: 2 }, "abc", [
    "spec: Too long: may not be more than 2 bytes",
    BLOCKED,
  ]],
  ["minLength", { type: "string", minLength: 2 }, "a", [
    'spec: Invalid value: "a": spec in body should be at least 2 chars long',
  ]],
  ["pattern", { type: "string", pattern: "^[a-z]+$" }, "A", [
    `spec: Invalid value: "A": spec in body should match '^[a-z]+$'`,
  ]],
  ["enum", { type: "string", enum: ["a", "b"] }, "c", [
    'spec: Unsupported value: "c": supported values: "a", "b"',
    BLOCKED,
  ]],
  ["date", { type: "string", format: "date" }, "2024-02-30", [
    'spec: Invalid value: "2024-02-30": spec in body must be of type date: "2024-02-30"',
    BLOCKED,
  ]],
  ["date-time", { type: "string", format: "date-time" }, "2024-02-03T04:05:06Z", []],
  ["uuid", { type: "string", format: "uuid" }, "nope", [
    'spec: Invalid value: "nope": spec in body must be of type uuid: "nope"',
    BLOCKED,
  ]],
  ["byte", { type: "string", format: "byte" }, "aGk=", []],
  ["unknown format", { type: "string", format: "whatever" }, "x", []],
  ["maxItems", { type: "array", items: { type: "string" }, maxItems: 1 }, ["a", "b"], [
    "spec: Too many: 2: must have at most 1 item",
    BLOCKED,
  ]],
  ["minItems", { type: "array", items: { type: "string" }, minItems: 2 }, ["a"], [
    'spec: Invalid value: ["a"]: spec in body should have at least 2 items',
  ]],
  [
    "maxProperties",
    { type: "object", additionalProperties: { type: "string" }, maxProperties: 1 },
    { a: "1", b: "2" },
    ["spec: Too many: 2: must have at most 1 item", BLOCKED],
  ],
  ["required", { type: "object", properties: { a: { type: "string" } }, required: ["a"] }, {}, [
    "spec.a: Required value",
    BLOCKED,
  ]],
  [
    "nested items",
    { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } },
    [{ n: "x" }],
    [
      'spec[0].n: Invalid value: "x": spec[0].n in body must be of type integer: "string"',
      BLOCKED,
    ],
  ],
  [
    "anyOf",
    {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      anyOf: [{ required: ["a"] }, { required: ["b"] }],
    },
    {},
    [
      '<nil>: Invalid value: "": spec in body must validate at least one schema (anyOf)',
      "spec.a: Required value",
      BLOCKED,
    ],
  ],
  ["oneOf", { type: "integer", oneOf: [{ minimum: 0 }, { maximum: 10 }] }, 5, [
    '<nil>: Invalid value: "": spec in body must validate one and only one schema (oneOf). Found 2 valid alternatives',
  ]],
  ["not", { type: "string", not: { enum: ["x"] } }, "x", [
    '<nil>: Invalid value: "": spec in body must not validate the schema (not)',
  ]],
  [
    "list-type set",
    { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
    ["a", "b", "a"],
    ['spec[2]: Duplicate value: "a"'],
  ],
  [
    "list-type map",
    {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["k"],
      items: { type: "object", properties: { k: { type: "string" } } },
    },
    [{ k: "a" }, { k: "a" }],
    ['spec[1]: Duplicate value: {"k":"a"}'],
  ],
];

Deno.test("validate() checks types, formats and bounds with go-openapi's messages", async (t) => {
  for (const [name, schema, value, want] of VALUE_ROWS) {
    await t.step(name, () => assert.deepStrictEqual(run(schema, value), want));
  }
});

Deno.test("validate() checks embedded resources", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      e: {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
      },
    },
  };
  assert.deepStrictEqual(run(schema, { e: {} }), [
    "spec.e.apiVersion: Required value: must not be empty",
    "spec.e.kind: Required value: must not be empty",
    BLOCKED,
  ]);
  assert.deepStrictEqual(run(schema, { e: { apiVersion: "a/b/c", kind: "Pod_x" } }), [
    'spec.e.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    `spec.e.kind: Invalid value: "Pod_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
  ]);
  assert.deepStrictEqual(
    run(schema, { e: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } } }),
    [],
  );
});

Deno.test("validate() ratchets errors in unchanged parts on update", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: { a: { type: "string", maxLength: 2 }, b: { type: "string", maxLength: 2 } },
  };
  assert.deepStrictEqual(run(schema, { a: "long", b: "x" }, { a: "long", b: "y" }), []);
  assert.deepStrictEqual(run(schema, { a: "long", b: "xyz" }, { a: "long", b: "y" }), [
    "spec.b: Too long: may not be more than 2 bytes",
    BLOCKED,
  ]);
});
