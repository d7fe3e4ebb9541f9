import assert from "node:assert/strict";
import { applyFieldValidation } from "../../../apiserver/http/field_validation.ts";
import { decodeRequestBody } from "../../../apiserver/http/body.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

const model = builtinSchemaModel();
const type = model.kind("", "v1", "ConfigMap");
const kind = { group: "", kind: "ConfigMap" };
const enc = (s: string) => new TextEncoder().encode(s);

const JSON_BODY =
  `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"},"data":{"k":"v"},"spec":{}}`;
const YAML_BODY = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\nspec: {}\n";

async function run(contentType: string, body: string, directive: "Ignore" | "Warn" | "Strict") {
  const d = await decodeRequestBody(contentType, enc(body), {
    findDuplicates: directive !== "Ignore",
  });
  const value = d.value as Record<string, unknown>;
  const warnings = applyFieldValidation({
    model,
    type,
    value,
    duplicates: d.duplicates,
    directive,
    kind,
  });
  return { warnings, value };
}

Deno.test("applyFieldValidation() handles unknown and duplicate fields per level and body type", async (t) => {
  for (
    const [ct, body, dup] of [
      ["application/json", JSON_BODY, 'duplicate field "metadata.name"'],
      ["application/yaml", YAML_BODY, 'line 5: key "name" already set in map'],
    ]
  ) {
    await t.step(`${ct} Ignore drops silently`, async () => {
      const r = await run(ct, body, "Ignore");
      assert.deepEqual(r.warnings, []);
      assert.equal("spec" in r.value, false);
      assert.equal((r.value.metadata as { name: string }).name, "b");
    });
    await t.step(`${ct} Warn reports each field`, async () => {
      const r = await run(ct, body, "Warn");
      assert.deepEqual(r.warnings, ['unknown field "spec"', dup]);
      assert.equal("spec" in r.value, false);
    });
    await t.step(`${ct} Strict rejects with 400 listing all`, async () => {
      await assert.rejects(() => run(ct, body, "Strict"), (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 400);
        assert.equal(e.status.message, `strict decoding error: unknown field "spec", ${dup}`);
        return true;
      });
    });
  }
  await t.step("type errors win with 422 and one cause per field", async () => {
    await assert.rejects(
      () =>
        run(
          "application/json",
          `{"metadata":{"name":"a"},"data":{"k":1},"immutable":"x","foo":1}`,
          "Strict",
        ),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.code, 422);
        assert.deepEqual(e.status.details?.causes?.map((c) => c.field), ["data[k]", "immutable"]);
        return true;
      },
    );
  });
});

Deno.test("applyFieldValidation() reports pruned fields as unknown fields (custom resources)", () => {
  const input = {
    model,
    value: { metadata: { name: "a" } },
    duplicates: [],
    kind: { group: "example.com", kind: "Widget" },
    pruned: ["spec.extra"],
  };
  assert.deepEqual(applyFieldValidation({ ...input, directive: "Warn" }), [
    'unknown field "spec.extra"',
  ]);
  assert.deepEqual(applyFieldValidation({ ...input, directive: "Ignore" }), []);
  assert.throws(
    () => applyFieldValidation({ ...input, directive: "Strict" }),
    (e: unknown) =>
      e instanceof StatusError && e.code === 400 &&
      e.status.message === 'strict decoding error: unknown field "spec.extra"',
  );
});
