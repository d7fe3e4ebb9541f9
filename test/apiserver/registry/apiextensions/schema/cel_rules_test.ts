import assert from "node:assert";
import { compileCustomResourceSchema } from "../../../../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import { CelRuleValidator } from "../../../../../apiserver/registry/apiextensions/schema/cel_validation.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

function cr(spec: unknown): KubeObject {
  return { apiVersion: "a/v1", kind: "K", metadata: { name: "x" }, spec } as unknown as KubeObject;
}

function validator(
  spec: JSONSchemaProps,
  rootRules: JSONSchemaProps["x-kubernetes-validations"] = [],
) {
  const c = compileCustomResourceSchema({
    type: "object",
    properties: { spec },
    ...(rootRules.length ? { "x-kubernetes-validations": rootRules } : {}),
  });
  return (s: unknown, old?: unknown) =>
    c.validate(cr(s), old === undefined ? undefined : cr(old)).map(fieldErrorMessage);
}

Deno.test("validate() runs rules with message, messageExpression, reason and fieldPath", () => {
  const v = validator({
    type: "object",
    properties: {
      min: { type: "integer" },
      max: { type: "integer" },
      name: { type: "string" },
      m: { type: "object", additionalProperties: { type: "string" } },
    },
    "x-kubernetes-validations": [
      { rule: "self.min <= self.max" },
      { rule: "self.min <= self.max", message: "min must not exceed max" },
      { rule: "self.min <= self.max", messageExpression: "'min ' + string(self.min) + ' > max'" },
      { rule: "self.min <= self.max", messageExpression: "''", message: "fallback" },
      { rule: "self.min <= self.max", reason: "FieldValueForbidden", fieldPath: ".max" },
      { rule: "self.min <= self.max", reason: "FieldValueRequired", fieldPath: "['name']" },
      { rule: "self.min <= self.max", fieldPath: ".m['a.b']" },
      { rule: "self.min <= self.max", reason: "FieldValueDuplicate" },
    ],
  });
  assert.deepStrictEqual(v({ min: 1, max: 2 }), []);
  assert.deepStrictEqual(v({ min: 3, max: 2 }), [
    'spec: Invalid value: "object": failed rule: self.min <= self.max',
    'spec: Invalid value: "object": min must not exceed max',
    'spec: Invalid value: "object": min 3 > max',
    'spec: Invalid value: "object": fallback',
    "spec.max: Forbidden: failed rule: self.min <= self.max",
    "spec.name: Required value: failed rule: self.min <= self.max",
    'spec.m[a.b]: Invalid value: "object": failed rule: self.min <= self.max',
    'spec: Duplicate value: "object"',
  ]);
});

Deno.test("validate() reports root rules at <nil> and types self with metadata", () => {
  const bad = compileCustomResourceSchema({
    type: "object",
    properties: { metadata: { type: "object" } },
    "x-kubernetes-validations": [{ rule: "self.metadata.labels.size() > 0" }],
  });
  assert.match(
    fieldErrorMessage(bad.validate(cr({}))[0]),
    /^<nil>: Invalid value: "object": rule compile error: compilation failed: ERROR: .*labels/,
  );
  const v = validator({ type: "object", properties: { n: { type: "integer" } } }, [
    { rule: "self.metadata.name.startsWith('ok')" },
    { rule: "self.kind == 'K' && self.apiVersion == 'a/v1'" },
  ]);
  assert.deepStrictEqual(v({ n: 1 }), [
    "<nil>: Invalid value: \"object\": failed rule: self.metadata.name.startsWith('ok')",
  ]);
});

Deno.test("validate() runs transition rules only on update, with correlated oldSelf", () => {
  const v = validator({
    type: "object",
    properties: {
      replicas: {
        type: "integer",
        "x-kubernetes-validations": [{ rule: "self >= oldSelf", message: "cannot shrink" }],
      },
      immutable: {
        type: "string",
        "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "is immutable" }],
      },
      ports: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: {
          type: "object",
          properties: { name: { type: "string" }, port: { type: "integer" } },
          "x-kubernetes-validations": [{
            rule: "self.port == oldSelf.port",
            message: "port fixed",
          }],
        },
      },
      created: {
        type: "string",
        "x-kubernetes-validations": [{
          rule: "!oldSelf.hasValue() || oldSelf.value() == self",
          optionalOldSelf: true,
          message: "set once",
        }],
      },
    },
  });
  const first = { replicas: 3, immutable: "a", ports: [{ name: "http", port: 80 }], created: "x" };
  assert.deepStrictEqual(v(first), []);
  const next = {
    replicas: 2,
    immutable: "b",
    ports: [{ name: "dns", port: 53 }, { name: "http", port: 81 }],
    created: "y",
  };
  assert.deepStrictEqual(
    v(next, first),
    [
      'spec.created: Invalid value: "string": set once',
      'spec.immutable: Invalid value: "string": is immutable',
      'spec.ports[1]: Invalid value: "object": port fixed',
      'spec.replicas: Invalid value: "integer": cannot shrink',
    ].sort((a, b) => orderOf(a, next) - orderOf(b, next)),
  );
});

function orderOf(msg: string, spec: Record<string, unknown>): number {
  return Object.keys(spec).findIndex((k) => msg.startsWith(`spec.${k}`));
}

Deno.test("validate() ratchets rules on unchanged values on update", () => {
  const v = validator({
    type: "object",
    properties: { a: { type: "string", "x-kubernetes-validations": [{ rule: "self == 'ok'" }] } },
  });
  assert.deepStrictEqual(v({ a: "bad" }).length, 1);
  assert.deepStrictEqual(v({ a: "bad" }, { a: "bad" }), []);
  assert.deepStrictEqual(v({ a: "worse" }, { a: "bad" }).length, 1);
});

Deno.test("validate() reports runtime errors and stops at the cost limits", () => {
  const v = validator({
    type: "object",
    properties: {
      m: { type: "object", additionalProperties: { type: "string" } },
      l: { type: "array", items: { type: "integer" } },
    },
    "x-kubernetes-validations": [
      { rule: "self.m['missing'] == 'x'" },
      { rule: "self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))" },
      { rule: "true == false", message: "never reached" },
    ],
  });
  const l = Array.from({ length: 200 }, (_, i) => i);
  const errs = v({ m: {}, l });
  assert.strictEqual(errs.length, 2, errs.join("\n"));
  assert.match(
    errs[0],
    /^spec: Invalid value: "object": .*missing.* evaluating rule: self\.m\['missing'\] == 'x'$/,
  );
  assert.strictEqual(
    errs[1],
    `spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))`,
  );
});

Deno.test("CelRuleValidator.validate() shares one per-object budget across all rules", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "array",
        items: {
          type: "array",
          items: { type: "integer" },
          "x-kubernetes-validations": [{ rule: "self.all(a, self.all(b, a + b >= 0))" }],
        },
      },
    },
  };
  const inner = Array.from({ length: 30 }, (_, i) => i);
  const obj = cr(Array.from({ length: 50 }, () => inner));
  const ok = new CelRuleValidator(schema).validate(obj, undefined, false, 10_000_000);
  assert.deepStrictEqual(ok, []);
  const errs = new CelRuleValidator(schema).validate(obj, undefined, false, 50_000)
    .map(fieldErrorMessage);
  assert.strictEqual(errs.length, 1, errs.join("\n"));
  assert.match(
    errs[0],
    /^spec\[\d+\]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run$/,
  );
});
