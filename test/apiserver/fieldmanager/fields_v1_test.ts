import assert from "node:assert/strict";
import { FieldSet } from "../../../apiserver/fieldmanager/field_set.ts";
import { fieldsV1ToSet, setToFieldsV1 } from "../../../apiserver/fieldmanager/fields_v1.ts";
import { fieldElement, keyElement } from "../../../apiserver/fieldmanager/path_element.ts";

Deno.test("setToFieldsV1() writes keys in path element order with '.' for members with children", () => {
  const s = FieldSet.of(
    [fieldElement("spec"), fieldElement("b")],
    [fieldElement("spec"), fieldElement("a")],
    [fieldElement("list"), { kind: "value", value: "x" }],
    [fieldElement("list"), { kind: "value", value: 1 }],
    [fieldElement("items"), keyElement([["port", 80], ["name", "a"]])],
    [fieldElement("items"), keyElement([["port", 80], ["name", "a"]]), fieldElement("x")],
  );
  assert.equal(
    JSON.stringify(setToFieldsV1(s)),
    '{"f:items":{"k:{\\"name\\":\\"a\\",\\"port\\":80}":{".":{},"f:x":{}}},' +
      '"f:list":{"v:1":{},"v:\\"x\\"":{}},"f:spec":{"f:a":{},"f:b":{}}}',
  );
});

Deno.test("fieldsV1ToSet() round-trips and normalizes", async (t) => {
  const cases: [string, string][] = [
    ['{"f:a":{}}', '{"f:a":{}}'],
    ['{"f:b":{},"f:a":{}}', '{"f:a":{},"f:b":{}}'],
    ['{"f:a":{".":{},"f:b":{}}}', '{"f:a":{".":{},"f:b":{}}}'],
    ['{"f:l":{"k:{\\"b\\":1,\\"a\\":2}":{}}}', '{"f:l":{"k:{\\"a\\":2,\\"b\\":1}":{}}}'],
    ['{"f:l":{"i:3":{},"i:1":{}}}', '{"f:l":{"i:1":{},"i:3":{}}}'],
    ['{"x:unknown":{},"f:a":{}}', '{"f:a":{}}'],
  ];
  for (const [input, want] of cases) {
    await t.step(input, () => {
      assert.equal(JSON.stringify(setToFieldsV1(fieldsV1ToSet(JSON.parse(input)))), want);
    });
  }
});

Deno.test("fieldsV1ToSet() rejects malformed keys", async (t) => {
  for (const bad of ['{"k:{":{}}', '{"v:[":{}}', '{"i:x":{}}', '{"f:a":1}', '{"k:[1]":{}}']) {
    await t.step(bad, () => assert.throws(() => fieldsV1ToSet(JSON.parse(bad))));
  }
  assert.throws(() => fieldsV1ToSet([]));
});
