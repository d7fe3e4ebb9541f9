import assert from "node:assert/strict";
import {
  defaultMetaFieldLabels,
  escapeFieldValue,
  FieldSelector,
  parseFieldSelector,
  supportedFieldLabels,
  unescapeFieldValue,
  validateFieldSelector,
} from "../../../shared/selectors/field_selector.ts";
import { SelectorError } from "../../../shared/selectors/selector_error.ts";

Deno.test("parseFieldSelector() parses terms into sorted requirements", async (t) => {
  const cases: [string, string, { field: string; operator: string; value: string }[]][] = [
    ["", "", []],
    [",", "", []],
    ["a=b", "a=b", [{ field: "a", operator: "=", value: "b" }]],
    ["a==b", "a=b", [{ field: "a", operator: "=", value: "b" }]],
    ["a!=b", "a!=b", [{ field: "a", operator: "!=", value: "b" }]],
    ["b=1,a!=2", "a!=2,b=1", [
      { field: "a", operator: "!=", value: "2" },
      { field: "b", operator: "=", value: "1" },
    ]],
    ["a=b\\,c", "a=b\\,c", [{ field: "a", operator: "=", value: "b,c" }]],
    ["x=\\=\\\\", "x=\\=\\\\", [{ field: "x", operator: "=", value: "=\\" }]],
    ["a=", "a=", [{ field: "a", operator: "=", value: "" }]],
    ["metadata.name=x,,", "metadata.name=x", [{
      field: "metadata.name",
      operator: "=",
      value: "x",
    }]],
  ];
  for (const [input, canonical, reqs] of cases) {
    await t.step(JSON.stringify(input), () => {
      const sel = parseFieldSelector(input);
      assert.equal(sel.toString(), canonical);
      assert.deepEqual(sel.requirements, reqs);
    });
  }
});

Deno.test("parseFieldSelector() rejects bad input with Kubernetes' messages", async (t) => {
  const cases: [string, string][] = [
    ["a", "invalid selector: 'a'; can't understand 'a'"],
    ["a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"],
    ["a=b=c", "invalid field selector: unescaped character in value: 61"],
    ["a=b\\x", "invalid field selector: invalid escape sequence: \\x"],
    ["a=b\\", "invalid field selector: invalid escape sequence: \\"],
  ];
  for (const [input, message] of cases) {
    await t.step(JSON.stringify(input), () => {
      assert.throws(() => parseFieldSelector(input), (e: unknown) => {
        assert.ok(e instanceof SelectorError);
        assert.equal(e.code, 400);
        assert.equal(e.message, message);
        return true;
      });
    });
  }
});

Deno.test("FieldSelector.matches() compares fields, missing ones as empty", async (t) => {
  const fields = { "metadata.name": "a", "spec.nodeName": "n1" };
  const cases: [string, boolean][] = [
    ["", true],
    ["metadata.name=a", true],
    ["metadata.name=b", false],
    ["metadata.name!=b", true],
    ["spec.nodeName=n1,metadata.name=a", true],
    ["spec.nodeName=", false],
    ["status.phase=", true],
    ["status.phase!=", false],
  ];
  for (const [sel, want] of cases) {
    await t.step(
      sel || "(empty)",
      () => assert.equal(parseFieldSelector(sel).matches(fields), want),
    );
  }
});

Deno.test("FieldSelector.exactMatch() returns the pinned value", () => {
  assert.equal(parseFieldSelector("metadata.name=x").exactMatch("metadata.name"), "x");
  assert.equal(parseFieldSelector("metadata.name==x").exactMatch("metadata.name"), "x");
  assert.equal(parseFieldSelector("metadata.name!=x").exactMatch("metadata.name"), undefined);
  assert.equal(FieldSelector.everything().exactMatch("metadata.name"), undefined);
  assert.equal(FieldSelector.everything().empty(), true);
});

Deno.test("validateFieldSelector() rejects unsupported field labels", () => {
  const sel = parseFieldSelector("spec.nodeName=n,metadata.name=a");
  const ok = validateFieldSelector(sel, ["metadata.name", "spec.nodeName"]);
  assert.equal(ok.toString(), "metadata.name=a,spec.nodeName=n");
  assert.throws(
    () => validateFieldSelector(parseFieldSelector("spec.foo=1"), ["metadata.name"]),
    (e: unknown) => {
      assert.ok(e instanceof SelectorError);
      assert.equal(e.code, 400);
      assert.equal(e.message, "field label not supported: spec.foo");
      return true;
    },
  );
});

Deno.test("supportedFieldLabels() maps aliases and rejects the rest", () => {
  const convert = supportedFieldLabels(["spec.nodeName"], { "spec.host": "spec.nodeName" });
  const sel = parseFieldSelector("spec.host=n1").transform(convert);
  assert.equal(sel.toString(), "spec.nodeName=n1");
  assert.throws(() => convert("x", "y"), { message: "field label not supported: x" });
});

Deno.test("defaultMetaFieldLabels() allows only name and namespace", () => {
  assert.deepEqual(defaultMetaFieldLabels("metadata.name", "a"), ["metadata.name", "a"]);
  assert.deepEqual(defaultMetaFieldLabels("metadata.namespace", "a"), ["metadata.namespace", "a"]);
  assert.throws(() => defaultMetaFieldLabels("data.x", "a"), {
    message: '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
  });
});

Deno.test("FieldSelector.transform() drops terms mapped to nothing", () => {
  const sel = parseFieldSelector("a=1,b=2").transform((l, v) => (l === "a" ? ["", ""] : [l, v]));
  assert.equal(sel.toString(), "b=2");
});

Deno.test("escapeFieldValue() and unescapeFieldValue() round-trip", () => {
  for (const v of ["", "plain", "a,b", "a=b", "a\\b", "\\,=", "ünï"]) {
    assert.equal(unescapeFieldValue(escapeFieldValue(v)), v);
  }
});
