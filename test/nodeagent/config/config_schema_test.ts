import assert from "node:assert/strict";
import { checkFieldTypes, type FieldSchema } from "../../../nodeagent/config/config_schema.ts";

const DURATION: FieldSchema = { type: "duration" };

Deno.test("checkFieldTypes() reads durations as Go's time.ParseDuration does", async (t) => {
  for (const text of ["10s", "+0", "-0", "1.s", ".5s", "1h2m3s", "+5s"]) {
    await t.step(`accepts ${text}`, () => {
      assert.deepEqual(checkFieldTypes(text, DURATION, "c.yaml", "f").problems, []);
    });
  }
  const bad: [string, string][] = [
    ["10", 'time: missing unit in duration "10"'],
    ["1d", 'time: unknown unit "d" in duration "1d"'],
    ["", 'time: invalid duration ""'],
    [" 5s", 'time: invalid duration " 5s"'],
  ];
  for (const [text, message] of bad) {
    await t.step(`rejects ${JSON.stringify(text)}`, () => {
      assert.deepEqual(checkFieldTypes(text, DURATION, "c.yaml", "f").problems, [
        { file: "c.yaml", field: "f", message },
      ]);
    });
  }
});
