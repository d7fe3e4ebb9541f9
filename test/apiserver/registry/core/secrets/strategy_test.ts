import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { secretKind } from "../../../../../apiserver/registry/core/secrets/strategy.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";

const { strategy } = secretKind;
const secret = (
  rest: Record<string, unknown>,
  annotations?: Record<string, string>,
): KubeObject => ({
  metadata: { name: "s", namespace: "default", ...(annotations ? { annotations } : {}) },
  ...rest,
});
/** What a request gets: the schema's type errors first (a 422 before the store), else the strategy's. */
const errs = (obj: KubeObject) =>
  validateLikeRequest(secretKind, obj).map((e) => `${e.type} ${e.field}`);

Deno.test("secretKind.strategy.validate() checks data, stringData and type", async (t) => {
  const cases: [string, KubeObject, string[]][] = [
    ["empty", secret({}), []],
    ["base64 data", secret({ data: { a: "aGVsbG8=", b: "", "c.d": "YQ==" } }), []],
    ["data not base64", secret({ data: { a: "not base64!" } }), ["FieldValueInvalid data[a]"]],
    ["data value not a string", secret({ data: { a: 1 } }), ["FieldValueTypeInvalid data[a]"]],
    ["bad data key", secret({ data: { "a b": "" } }), ["FieldValueInvalid data[a b]"]],
    ["data key '..'", secret({ data: { "..": "" } }), ["FieldValueInvalid data[..]"]],
    ["stringData", secret({ stringData: { a: "hello" } }), []],
    ["stringData value not a string", secret({ stringData: { a: 1 } }), [
      "FieldValueTypeInvalid stringData[a]",
    ]],
    ["bad stringData key", secret({ stringData: { "a/b": "x" } }), ["FieldValueInvalid data[a/b]"]],
    ["stringData over the size limit", secret({ stringData: { a: "x".repeat(1024 * 1024 + 1) } }), [
      "FieldValueTooLong data",
    ]],
    ["data over the size limit", secret({ data: { a: "QUFB".repeat(350_000) } }), [
      "FieldValueTooLong data",
    ]],
    ["type not a string", secret({ type: 1 }), ["FieldValueTypeInvalid type"]],
    [
      "service account token without the name annotation",
      secret({
        type: "kubernetes.io/service-account-token",
      }),
      ["FieldValueRequired metadata.annotations[kubernetes.io/service-account.name]"],
    ],
    [
      "service account token with the name annotation",
      secret({
        type: "kubernetes.io/service-account-token",
      }, { "kubernetes.io/service-account.name": "default" }),
      [],
    ],
  ];
  for (const [name, obj, want] of cases) {
    await t.step(name, () => assert.deepEqual(errs(obj), want));
  }
  await t.step("the value of bad base64 is redacted", () => {
    const [e] = strategy.validate(secret({ data: { a: "s3cr3t!" } }));
    assert.equal(e.value, "<secret contents redacted>");
  });
  await t.step("validation leaves stringData in place", () => {
    const obj = secret({ stringData: { a: "x" } });
    strategy.validate(obj);
    assert.deepEqual(obj.stringData, { a: "x" });
    assert.equal(obj.data, undefined);
  });
});

Deno.test("secretKind.strategy.canonicalize() moves stringData into base64 data", async (t) => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["stringData only", { stringData: { a: "hello" } }, { a: "aGVsbG8=" }],
    ["UTF-8", { stringData: { a: "é" } }, { a: "w6k=" }],
    ["stringData wins over data", { data: { a: "eA==", b: "eQ==" }, stringData: { a: "z" } }, {
      a: "eg==",
      b: "eQ==",
    }],
    ["no stringData", { data: { a: "eA==" } }, { a: "eA==" }],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => {
      const obj = secret(rest);
      strategy.canonicalize!(obj);
      assert.deepEqual(obj.data, want);
      assert.equal("stringData" in obj, false);
    });
  }
});

Deno.test("secretKind.strategy defaults and keeps the type", async (t) => {
  await t.step("Opaque on create", () => {
    const obj = secret({});
    strategy.prepareForCreate!(obj);
    assert.equal(obj.type, "Opaque");
  });
  await t.step("an explicit type is kept", () => {
    const obj = secret({ type: "kubernetes.io/tls" });
    strategy.prepareForCreate!(obj);
    assert.equal(obj.type, "kubernetes.io/tls");
  });
  await t.step("an update without a type keeps the old one", () => {
    const obj = secret({});
    strategy.prepareForUpdate!(obj, secret({ type: "kubernetes.io/tls" }));
    assert.equal(obj.type, "kubernetes.io/tls");
  });
  await t.step("the type is immutable", () => {
    const e = strategy.validateUpdate!(secret({ type: "b" }), secret({ type: "a" }));
    assert.deepEqual(e.map((x) => `${x.type} ${x.field} ${x.detail}`), [
      "FieldValueInvalid type field is immutable",
    ]);
  });
  assert.deepEqual(strategy.selectableFields!(secret({ type: "Opaque" })), { type: "Opaque" });
  assert.deepEqual(strategy.selectableFieldNames, ["type"]);
});

Deno.test("secretKind.strategy.validateUpdate() keeps immutable secrets unchanged", async (t) => {
  const old = secret({ type: "Opaque", immutable: true, data: { a: "eA==", b: "eQ==" } });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["same data", { data: { a: "eA==", b: "eQ==" } }, []],
    ["same data in another order", { data: { b: "eQ==", a: "eA==" } }, []],
    ["same data through stringData", { data: { b: "eQ==" }, stringData: { a: "x" } }, []],
    ["changed data", { data: { a: "eg==", b: "eQ==" } }, ["FieldValueForbidden data"]],
    ["changed through stringData", { data: { a: "eA==", b: "eQ==" }, stringData: { c: "z" } }, [
      "FieldValueForbidden data",
    ]],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => {
      const next = secret({ type: "Opaque", immutable: true, ...rest });
      assert.deepEqual(
        strategy.validateUpdate!(next, old).map((e) => `${e.type} ${e.field}`),
        want,
      );
    });
  }
  await t.step("immutable cannot be cleared", () => {
    const next = secret({ type: "Opaque", data: { a: "eA==", b: "eQ==" } });
    assert.deepEqual(
      strategy.validateUpdate!(next, old).map((e) => `${e.type} ${e.field}`),
      ["FieldValueForbidden immutable"],
    );
  });
});
