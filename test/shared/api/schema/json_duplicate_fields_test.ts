import assert from "node:assert/strict";
import { findJsonDuplicateFields } from "../../../../shared/api/schema/json_duplicate_fields.ts";

Deno.test("findJsonDuplicateFields() reports every duplicated key by path", async (t) => {
  const cases: [string, string, string[]][] = [
    ["no duplicates", `{"a":1,"b":{"a":2}}`, []],
    ["top level", `{"a":1,"a":2}`, ["a"]],
    ["nested", `{"metadata":{"name":"x","name":"y"}}`, ["metadata.name"]],
    [
      "in list items",
      `{"spec":{"containers":[{"name":"a"},{"name":"b","image":"i","image":"j"}]}}`,
      ["spec.containers[1].image"],
    ],
    ["keys with escapes and strings holding braces", `{"a\\"b":"{,}","a\\"b":1}`, [`a"b`]],
    ["arrays of arrays", `{"x":[[1,2],[{"k":1,"k":2}]]}`, ["x[1][0].k"]],
    [
      "values ending in escaped backslashes and holding escaped quotes",
      `{"a":"x\\\\","b":"\\"}{,\\\\\\"","a":2,"c\\\\":1,"c\\\\":2}`,
      ["a", `c\\`],
    ],
    [
      "a long value between keys",
      `{"k":"${"x".repeat(5000)}\\"","v":{"k":[],"k":{}},"k":null}`,
      ["v.k", "k"],
    ],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => {
      JSON.parse(text);
      assert.deepEqual(findJsonDuplicateFields(text), want);
    });
  }
});
