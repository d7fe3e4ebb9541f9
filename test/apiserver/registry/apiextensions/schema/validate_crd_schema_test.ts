import assert from "node:assert";
import { validateCrdSchema } from "../../../../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

const P = "spec.versions[0].schema.openAPIV3Schema";
const check = (s: JSONSchemaProps, opts = {}) =>
  validateCrdSchema(s, P, opts).map(fieldErrorMessage);
const root = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: "object",
  properties,
});

Deno.test("validateCrdSchema() rejects unsupported keywords and bad types", () => {
  assert.deepStrictEqual(
    check(root({
      a: { type: "string", id: "x", $ref: "#/x" },
      b: { type: "null" },
      c: { type: "foo" },
      d: { type: "array", items: { type: "string" }, uniqueItems: true },
      e: { type: "object", properties: { x: { type: "string" } }, additionalProperties: false },
      f: { type: "string", "x-kubernetes-preserve-unknown-fields": false },
    })),
    [
      "spec.versions[0].schema.openAPIV3Schema.properties[a].id: Forbidden: id is not supported",
      "spec.versions[0].schema.openAPIV3Schema.properties[a].$ref: Forbidden: $ref is not supported",
      'spec.versions[0].schema.openAPIV3Schema.properties[b].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
      "spec.versions[0].schema.openAPIV3Schema.properties[b].type: Forbidden: type cannot be set to null, use nullable as an alternative",
      'spec.versions[0].schema.openAPIV3Schema.properties[c].type: Unsupported value: "foo": supported values: "array", "boolean", "integer", "number", "object", "string"',
      "spec.versions[0].schema.openAPIV3Schema.properties[d].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
      "spec.versions[0].schema.openAPIV3Schema.properties[e].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
      "spec.versions[0].schema.openAPIV3Schema.properties[f].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
    ],
  );
});

Deno.test("validateCrdSchema() checks list and map markers", () => {
  const errs = check(root({
    a: { type: "string", "x-kubernetes-list-type": "set" },
    b: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "bag" },
    c: { type: "array", items: { type: "string" }, "x-kubernetes-list-map-keys": ["k"] },
    d: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["k", "o", "x", "k"],
      items: {
        type: "object",
        properties: { k: { type: "string" }, o: { type: "object" } },
        required: ["k", "o"],
      },
    },
    h: {
      type: "array",
      "x-kubernetes-list-type": "set",
      items: { type: "string", nullable: true },
    },
    i: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["k"],
      items: { type: "object", properties: { k: { type: "string", nullable: true } } },
    },
    e: { type: "string", "x-kubernetes-map-type": "granular" },
    f: { type: "object", "x-kubernetes-map-type": "other" },
    g: {
      type: "array",
      "x-kubernetes-list-type": "set",
      items: { type: "object", properties: { a: { type: "string" } } },
    },
  }));
  assert.deepStrictEqual(errs, [
    'spec.versions[0].schema.openAPIV3Schema.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified',
    'spec.versions[0].schema.openAPIV3Schema.properties[b].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
    "spec.versions[0].schema.openAPIV3Schema.properties[c].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
    `spec.versions[0].schema.openAPIV3Schema.properties[d].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
    'spec.versions[0].schema.openAPIV3Schema.properties[d].x-kubernetes-list-map-keys: Invalid value: ["k","o","x","k"]: entries must all be names of item properties',
    'spec.versions[0].schema.openAPIV3Schema.properties[d].x-kubernetes-list-map-keys: Invalid value: ["k","o","x","k"]: must not contain duplicate entries',
    "spec.versions[0].schema.openAPIV3Schema.properties[h].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set",
    "spec.versions[0].schema.openAPIV3Schema.properties[i].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
    "spec.versions[0].schema.openAPIV3Schema.properties[i].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
    'spec.versions[0].schema.openAPIV3Schema.properties[e].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified',
    'spec.versions[0].schema.openAPIV3Schema.properties[f].x-kubernetes-map-type: Unsupported value: "other": supported values: "atomic", "granular"',
    'spec.versions[0].schema.openAPIV3Schema.properties[g].items.x-kubernetes-map-type: Invalid value: "": must be atomic as item of a list with x-kubernetes-list-type=set',
  ]);
});

Deno.test("validateCrdSchema() checks defaults: placement, pruning and validity", () => {
  assert.deepStrictEqual(
    check({
      type: "object",
      properties: {
        metadata: { type: "object", default: {} },
        a: { type: "integer", default: "x" },
        b: { type: "object", properties: { x: { type: "string" } }, default: { x: "1", y: 2 } },
        c: { type: "string", default: "abc", maxLength: 2 },
        d: { type: "object", additionalProperties: { type: "string" }, default: { k: "v" } },
        e: {
          type: "integer",
          default: 3,
          "x-kubernetes-validations": [{ rule: "self > 5" }],
        },
      },
    }),
    [
      'spec.versions[0].schema.openAPIV3Schema.properties[a].default: Invalid value: "x": in body must be of type integer: "string"',
      'spec.versions[0].schema.openAPIV3Schema.properties[b].default: Invalid value: {"x":"1","y":2}: must not have unknown fields',
      "spec.versions[0].schema.openAPIV3Schema.properties[c].default: Too long: may not be more than 2 bytes",
      'spec.versions[0].schema.openAPIV3Schema.properties[e].default: Invalid value: "integer": failed rule: self > 5',
      "spec.versions[0].schema.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata",
    ],
  );
});

Deno.test("validateCrdSchema() checks the fields of validation rules", () => {
  const errs = check(root({
    a: {
      type: "object",
      properties: {
        x: { type: "string" },
        m: { type: "object", additionalProperties: { type: "string" } },
      },
      "x-kubernetes-validations": [
        { rule: " " },
        { rule: "true", message: " " },
        { rule: "true", message: "a\nb" },
        { rule: "true &&\ntrue" },
        { rule: "true", messageExpression: " " },
        { rule: "true", reason: "Bogus" },
        { rule: "true", fieldPath: ".y" },
        { rule: "true", fieldPath: ".x" },
        { rule: "true", fieldPath: ".m['a.b']" },
      ],
    },
  }));
  const v = "spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-validations";
  assert.deepStrictEqual(errs, [
    `${v}[0].rule: Required value: rule is not specified`,
    `${v}[1].message: Invalid value: " ": message must be non-empty if specified`,
    `${v}[2].message: Invalid value: "a\\nb": message must not contain line breaks`,
    `${v}[3].message: Required value: message must be specified if rule contains line breaks`,
    `${v}[4].messageExpression: Required value: messageExpression must be non-empty if specified`,
    `${v}[5].reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    `${v}[6].fieldPath: Invalid value: ".y": fieldPath must be a valid path`,
  ]);
});

Deno.test("validateCrdSchema() compiles and type checks rules and messageExpressions", () => {
  const errs = validateCrdSchema(
    root({
      a: {
        type: "object",
        properties: { n: { type: "integer" } },
        "x-kubernetes-validations": [
          { rule: "self.n > 0" },
          { rule: "self.missing > 0" },
          { rule: "self.n" },
          { rule: "true", messageExpression: "self.n" },
          { rule: "true", messageExpression: "'n is ' + string(self.n)" },
        ],
      },
    }),
    P,
  );
  const v = `${P}.properties[a].x-kubernetes-validations`;
  assert.deepStrictEqual(errs.map((e) => [e.type, e.field]), [
    ["FieldValueInvalid", `${v}[1].rule`],
    ["FieldValueInvalid", `${v}[2].rule`],
    ["FieldValueInvalid", `${v}[3].messageExpression`],
  ]);
  assert.match(errs[0].detail, /^compilation failed: ERROR: <input>:1:\d+: /);
  assert.strictEqual(errs[1].detail, "cel expression must evaluate to a bool");
  assert.strictEqual(errs[2].detail, "messageExpression must evaluate to a string");
});

Deno.test("validateCrdSchema() allows oldSelf only where values correlate (maps always, lists by map keys)", () => {
  const rule = (r: string, optionalOldSelf?: boolean) => ({
    "x-kubernetes-validations": [{
      rule: r,
      ...(optionalOldSelf === undefined ? {} : { optionalOldSelf }),
    }],
  });
  const errs = check(root({
    ok: { type: "string", maxLength: 10, ...rule("self == oldSelf") },
    mapList: {
      type: "array",
      maxItems: 10,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["k"],
      items: {
        type: "object",
        properties: { k: { type: "string", maxLength: 10, ...rule("self == oldSelf") } },
        required: ["k"],
      },
    },
    atomic: {
      type: "array",
      maxItems: 10,
      items: { type: "string", maxLength: 10, ...rule("self == oldSelf") },
    },
    atomicMap: {
      type: "object",
      "x-kubernetes-map-type": "atomic",
      properties: { x: { type: "string", maxLength: 10, ...rule("self == oldSelf") } },
    },
    opt: { type: "string", maxLength: 10, ...rule("oldSelf.orValue('') == self", true) },
    notOld: { type: "string", ...rule("self == 'a'", false) },
  }));
  const p = "spec.versions[0].schema.openAPIV3Schema.properties";
  assert.deepStrictEqual(errs, [
    `${p}[atomic].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${p}[atomic]`,
    `${p}[notOld].x-kubernetes-validations[0].optionalOldSelf: Invalid value: false: may not be set if oldSelf is not used in rule`,
  ]);
});

Deno.test("validateCrdSchema() estimates rule costs with maxItems/maxLength", () => {
  const nested = (bounded: boolean): JSONSchemaProps =>
    root({
      l: {
        type: "array",
        ...(bounded ? { maxItems: 10 } : {}),
        items: { type: "string", ...(bounded ? { maxLength: 10 } : {}) },
        "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x == y))" }],
      },
    });
  assert.deepStrictEqual(check(nested(true)), []);
  // an unbounded ancestor: the node's own request-size estimate, not a product of estimates
  const deepLists = root({
    l: {
      type: "array",
      items: {
        type: "array",
        items: {
          type: "string",
          maxLength: 64,
          "x-kubernetes-validations": [{ rule: "self != 'x'" }],
        },
      },
    },
  });
  assert.deepStrictEqual(check(deepLists), []);
  assert.deepStrictEqual(
    check(nested(false), { oldSchema: nested(false) }).map((e) => e.includes("contributed")),
    [true, false],
  );
  const errs = check(nested(false));
  const at =
    "spec.versions[0].schema.openAPIV3Schema.properties[l].x-kubernetes-validations[0].rule";
  assert.deepStrictEqual(errs, [
    `${at}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    `${at}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    "spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
  ]);
});

Deno.test("validateCrdSchema() restricts the root with the status subresource", () => {
  assert.deepStrictEqual(check({ type: "object", nullable: true }), [
    "spec.versions[0].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root",
  ]);
  const errs = validateCrdSchema(
    { type: "object", anyOf: [{ required: ["a"] }], properties: { a: { type: "string" } } },
    P,
    { hasStatus: true },
  );
  assert.strictEqual(errs.length, 1);
  assert.strictEqual(errs[0].field, P);
  assert.match(
    errs[0].detail,
    /^only \[Description Type Format .* XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/,
  );
});

Deno.test("validateCrdSchema() ratchets rules the old schema already broke", () => {
  const s = root({ a: { type: "foo" } });
  assert.strictEqual(check(s).length, 1);
  assert.deepStrictEqual(check(s, { oldSchema: s }), []);
  assert.strictEqual(check(s, { oldSchema: root({ a: { type: "string" } }) }).length, 1);
  const nonStructural = root({ a: {} });
  assert.strictEqual(check(nonStructural).length, 1);
  assert.deepStrictEqual(check(nonStructural, { oldSchema: nonStructural }), []);
});
