import assert from "node:assert/strict";
import {
  validateAllowedTopologies,
  validateCSIDriverName,
} from "../../../../apiserver/registry/storage/storage_validation.ts";

Deno.test("validateAllowedTopologies() reports empty values, bad keys and repeated terms", () => {
  const term = { matchLabelExpressions: [{ key: "zone", values: ["a", "b"] }] };
  assert.deepEqual(validateAllowedTopologies("allowedTopologies", [term]), []);
  const errs = validateAllowedTopologies("allowedTopologies", [
    term,
    { matchLabelExpressions: [{ key: "zone", values: ["b", "a"] }] },
    { matchLabelExpressions: [{ key: "bad key", values: [] }] },
  ]);
  assert.deepEqual(errs.map((e) => `${e.type} ${e.field}`), [
    "FieldValueDuplicate allowedTopologies[1].matchLabelExpressions",
    "FieldValueRequired allowedTopologies[2].matchLabelExpressions[0].values",
    "FieldValueInvalid allowedTopologies[2].matchLabelExpressions[0].key",
  ]);
});

Deno.test("validateCSIDriverName() wants a DNS subdomain of at most 63 characters", () => {
  assert.deepEqual(validateCSIDriverName("f", "csi.Example.com"), []);
  assert.deepEqual(validateCSIDriverName("f", "").map((e) => e.type), [
    "FieldValueRequired",
    "FieldValueInvalid",
  ]);
  assert.equal(validateCSIDriverName("f", "a".repeat(64))[0].type, "FieldValueTooLong");
});
