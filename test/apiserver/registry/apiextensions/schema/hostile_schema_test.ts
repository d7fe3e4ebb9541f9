import assert from "node:assert";
import {
  compileCustomResourceSchema,
  validateCrdSchema,
} from "../../../../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_RULES,
} from "../../../../../apiserver/registry/apiextensions/schema/limits.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

/** Generous: the machine is shared; this only catches a stall, it measures nothing. */
const DEADLINE_MS = 120_000;

/** Runs `f`; fails when it took longer than the (generous) deadline. */
function withinDeadline<T>(f: () => T): T {
  const start = performance.now();
  const out = f();
  const took = performance.now() - start;
  assert.ok(took < DEADLINE_MS, `took ${took} ms, over the ${DEADLINE_MS} ms deadline`);
  return out;
}

function nested(depth: number): JSONSchemaProps {
  let s: JSONSchemaProps = { type: "string" };
  for (let i = 0; i < depth; i++) s = { type: "object", properties: { a: s } };
  return s;
}

Deno.test("validateCrdSchema() refuses very deep schemas without exhausting the stack", () => {
  const errs = withinDeadline(() => validateCrdSchema(nested(100_000), "s"));
  assert.strictEqual(errs.length, 1);
  assert.strictEqual(errs[0].type, "FieldValueForbidden");
  assert.match(errs[0].detail, new RegExp(`nested more than ${MAX_SCHEMA_DEPTH} levels`));
  assert.deepStrictEqual(validateCrdSchema(nested(MAX_SCHEMA_DEPTH - 1), "s"), []);
});

Deno.test("validate() survives an object nested deeper than the stack", () => {
  const c = compileCustomResourceSchema({
    type: "object",
    properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    "x-kubernetes-validations": [{ rule: "has(self.spec)" }],
  });
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 200_000; i++) deep = { a: deep };
  const obj = { apiVersion: "a/v1", kind: "K", metadata: { name: "x" }, spec: deep };
  const errs = withinDeadline(() => c.validate(obj as unknown as KubeObject));
  assert.ok(Array.isArray(errs));
});

Deno.test("validateCrdSchema() and validate() handle a 100k-entry enum", () => {
  const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
  const schema: JSONSchemaProps = {
    type: "object",
    properties: { spec: { type: "string", enum: values, default: "v99999" } },
  };
  assert.deepStrictEqual(withinDeadline(() => validateCrdSchema(schema, "s")), []);
  const c = compileCustomResourceSchema(schema);
  const obj = (spec: string) =>
    ({ apiVersion: "a/v1", kind: "K", metadata: { name: "x" }, spec }) as unknown as KubeObject;
  for (let i = 0; i < 100; i++) assert.deepStrictEqual(c.validate(obj(`v${i * 997}`)), []);
  const errs = withinDeadline(() => c.validate(obj("nope")));
  assert.strictEqual(errs[0].type, "FieldValueNotSupported");
});

Deno.test("catastrophic patterns run in linear time (RE2) in schemas and rules", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "string",
        pattern: "^(a+)+$",
        maxLength: 200_000,
        "x-kubernetes-validations": [{ rule: "!self.matches('^(a|aa)+$')" }],
      },
    },
  };
  assert.deepStrictEqual(validateCrdSchema(schema, "s"), []);
  const c = compileCustomResourceSchema(schema);
  const obj = {
    apiVersion: "a/v1",
    kind: "K",
    metadata: { name: "x" },
    spec: "a".repeat(100_000) + "!",
  };
  const errs = withinDeadline(() =>
    c.validate(obj as unknown as KubeObject).map(fieldErrorMessage)
  );
  assert.strictEqual(errs.length, 1);
  assert.match(errs[0], /should match '\^\(a\+\)\+\$'/);
  assert.deepStrictEqual(
    validateCrdSchema(
      { type: "object", properties: { s: { type: "string", pattern: "a{1001}" } } },
      "s",
    )
      .map((e) => e.field),
    ["s.properties[s].pattern"],
  );
});

Deno.test("validateCrdSchema() bounds the number of rules it compiles", () => {
  const props: Record<string, JSONSchemaProps> = {};
  for (let i = 0; i <= MAX_SCHEMA_RULES; i++) {
    props[`f${i}`] = { type: "integer", "x-kubernetes-validations": [{ rule: `self > ${i}` }] };
  }
  const errs = withinDeadline(() => validateCrdSchema({ type: "object", properties: props }, "s"));
  assert.deepStrictEqual(errs.map(fieldErrorMessage), [
    `s: Forbidden: must not declare more than ${MAX_SCHEMA_RULES} x-kubernetes-validations rules, but declares ${
      MAX_SCHEMA_RULES + 1
    }`,
  ]);
});

Deno.test("validateCrdSchema() reports keywords of the wrong JSON type instead of throwing", () => {
  const bad = {
    type: "object",
    properties: {
      a: { type: 1, "x-kubernetes-validations": "self > 0" },
      b: { type: "array", items: "x" },
      c: { type: "object", "x-kubernetes-validations": [{ rule: 42 }] },
    },
  } as unknown as JSONSchemaProps;
  assert.deepStrictEqual(validateCrdSchema(bad, "s").map(fieldErrorMessage).sort(), [
    "s.properties[a].type: Invalid value: 1: must be of type string",
    's.properties[a].x-kubernetes-validations: Invalid value: "self > 0": must be of type array',
    's.properties[b].items: Invalid value: "x": must be of type object',
    "s.properties[c].x-kubernetes-validations[0].rule: Invalid value: 42: must be of type string",
  ]);
});
