import assert from "node:assert";
import { escapePropertyName, unescapePropertyName } from "../../../apiserver/cel/mod.ts";

Deno.test("escapePropertyName() escapes as Kubernetes does", async (t) => {
  const rows: [string, string | undefined][] = [
    ["name", "name"],
    ["foo-bar", "foo__dash__bar"],
    ["a.b", "a__dot__b"],
    ["x/y", "x__slash__y"],
    ["a__b", "a__underscores__b"],
    ["a_b", "a_b"],
    ["namespace", "__namespace__"],
    ["true", "__true__"],
    ["1abc", undefined],
    ["a b", undefined],
    ["", undefined],
  ];
  for (const [name, want] of rows) {
    await t.step(name || "(empty)", () => {
      assert.equal(escapePropertyName(name), want);
      if (want !== undefined) assert.equal(unescapePropertyName(want), name);
    });
  }
});
