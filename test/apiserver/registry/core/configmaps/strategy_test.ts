import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { configMapKind } from "../../../../../apiserver/registry/core/configmaps/strategy.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";

const { strategy } = configMapKind;
const cm = (rest: Record<string, unknown>): KubeObject => ({
  metadata: { name: "c", namespace: "default" },
  ...rest,
});
/** What a request gets: the schema's type errors first (a 422 before the store), else the strategy's. */
const fields = (obj: KubeObject) =>
  validateLikeRequest(configMapKind, obj).map((e) => `${e.type} ${e.field}`);

Deno.test("configMapKind.strategy.validate() checks keys, values and size", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["empty", {}, []],
    ["data and binaryData", { data: { "a.b_c-D": "x" }, binaryData: { bin: "AAEC" } }, []],
    ["data not an object", { data: "x" }, ["FieldValueTypeInvalid data"]],
    ["non-string value", { data: { a: 1 } }, ["FieldValueTypeInvalid data[a]"]],
    ["key with a space", { data: { "a b": "x" } }, ["FieldValueInvalid data[a b]"]],
    ["binary key with a slash", { binaryData: { "a/b": "AA==" } }, [
      "FieldValueInvalid binaryData[a/b]",
    ]],
    ["key '.'", { data: { ".": "x" } }, ["FieldValueInvalid data[.]"]],
    ["key '..'", { data: { "..": "x" } }, ["FieldValueInvalid data[..]"]],
    ["key starting with '..'", { data: { "..a": "x" } }, ["FieldValueInvalid data[..a]"]],
    ["key starting with one dot is fine", { data: { ".a": "x" } }, []],
    ["key of 254 characters", { data: { ["k".repeat(254)]: "x" } }, [
      `FieldValueInvalid data[${"k".repeat(254)}]`,
    ]],
    ["a key in both maps", { data: { a: "x" }, binaryData: { a: "AA==" } }, [
      "FieldValueInvalid data[a]",
    ]],
    ["immutable not a boolean", { immutable: "yes" }, ["FieldValueTypeInvalid immutable"]],
    ["over 1 MiB", { data: { a: "x".repeat(1024 * 1024), b: "y" } }, ["FieldValueTooLong "]],
    ["exactly 1 MiB of values", { data: { a: "x".repeat(1024 * 1024) } }, []],
    ["multi-byte values count bytes", { data: { a: "é".repeat(512 * 1024 + 1) } }, [
      "FieldValueTooLong ",
    ]],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => assert.deepEqual(fields(cm(rest)), want));
  }
});

Deno.test("configMapKind.strategy.validateUpdate() keeps immutable config maps unchanged", async (t) => {
  const old = cm({ immutable: true, data: { a: "1", b: "2" } });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["same data", { immutable: true, data: { a: "1", b: "2" } }, []],
    ["same data in another key order", { immutable: true, data: { b: "2", a: "1" } }, []],
    ["changed data", { immutable: true, data: { a: "1", b: "3" } }, ["FieldValueForbidden data"]],
    ["added binaryData", { immutable: true, data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }, [
      "FieldValueForbidden data",
    ]],
    ["immutable cleared", { data: { a: "1", b: "2" } }, ["FieldValueForbidden immutable"]],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => {
      const errs = strategy.validateUpdate!(cm(rest), old).map((e) => `${e.type} ${e.field}`);
      assert.deepEqual(errs, want);
    });
  }
  await t.step("a mutable config map may change", () => {
    assert.deepEqual(strategy.validateUpdate!(cm({ data: { a: "9" } }), cm({ data: {} })), []);
  });
});

Deno.test("configMapKind declares the ConfigMap resource", () => {
  assert.equal(configMapKind.plural, "configmaps");
  assert.deepEqual(configMapKind.shortNames, ["cm"]);
  assert.equal(configMapKind.namespaced, true);
  assert.equal(strategy.selectableFields, undefined);
});
