import assert from "node:assert/strict";
import { parseResourceVersion } from "../../../../apiserver/registry/generic/resource_version.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";

Deno.test("parseResourceVersion() reads the uint64 range as strconv.ParseUint does", async (t) => {
  const ok: Array<[string, number]> = [["", 0], ["0", 0], ["00", 0], ["42", 42]];
  for (const [rv, want] of ok) {
    await t.step(`"${rv}" is ${want}`, () => assert.equal(parseResourceVersion(rv), want));
  }
  const bad: Array<[string, string]> = [
    ["abc", "invalid syntax"],
    ["-1", "invalid syntax"],
    ["1.5", "invalid syntax"],
    [" 1", "invalid syntax"],
    ["18446744073709551616", "value out of range"],
  ];
  for (const [rv, problem] of bad) {
    await t.step(`"${rv}" is 400: ${problem}`, () => {
      assert.throws(
        () => parseResourceVersion(rv, "invalid resource version: "),
        (err: unknown) => {
          assert.ok(err instanceof StatusError);
          assert.equal(err.code, 400);
          assert.equal(
            err.message,
            `invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${problem}`,
          );
          return true;
        },
      );
    });
  }
  await t.step("the largest uint64 parses", () => {
    assert.equal(parseResourceVersion("18446744073709551615"), 18446744073709551615);
  });
});

Deno.test("parseResourceVersion() treats empty and 0 as zero", () => {
  assert.equal(parseResourceVersion(""), 0);
  assert.equal(parseResourceVersion("0"), 0);
  assert.equal(parseResourceVersion("123"), 123);
});
