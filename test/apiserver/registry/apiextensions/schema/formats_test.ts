import assert from "node:assert";
import {
  matchesFormat,
  normalizeFormat,
} from "../../../../../apiserver/registry/apiextensions/schema/formats.ts";

const ROWS: [string, string[], string[]][] = [
  ["date", ["2024-02-29", "1999-12-31"], ["2023-02-29", "2024-1-01", "2024-01-01T00:00:00Z"]],
  ["date-time", ["2024-02-03T04:05:06Z", "2024-02-03T04:05:06.123+02:00"], ["2024-02-03", "x"]],
  ["datetime", ["2024-02-03T04:05:06Z"], ["2024-13-03T04:05:06Z"]],
  ["byte", ["", "aGk=", "aGVsbG8="], ["aGk", "a b="]],
  ["uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"], ["x"]],
  ["uuid4", ["123e4567-e89b-42d3-a456-426614174000"], ["123e4567-e89b-12d3-a456-426614174000"]],
  ["ipv4", ["10.0.0.1"], ["10.0.0.256", "::1", "10.0.0"]],
  ["ipv6", ["::1", "fe80::1"], ["10.0.0.1", "fe80:::1"]],
  ["cidr", ["10.0.0.0/8", "fd00::/64"], ["10.0.0.0", "10.0.0.0/33"]],
  ["mac", ["00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"], ["00:1a:2b:3c:4d"]],
  ["hostname", ["example.com", "a"], ["-bad-.com", "a..b"]],
  ["email", ["a@b.c", "Name <a@b.c>"], ["a.b.c", "@b"]],
  ["uri", ["https://example.com/x", "/relative/path"], ["not a uri", "relative"]],
  ["duration", ["1h30m", "3s", "2 days"], ["forever"]],
  ["hexcolor", ["#fff", "A0B1C2"], ["#ffff"]],
  ["rgbcolor", ["rgb(1, 2, 255)"], ["rgb(1,2,256)"]],
  ["isbn10", ["0321751043"], ["0321751044"]],
  ["isbn13", ["978-0321751041"], ["978-0321751042"]],
  ["ssn", ["111-11-1111"], ["11-111-1111"]],
  ["bsonobjectid", ["507f1f77bcf86cd799439011"], ["507f1f77bcf86cd79943901"]],
  ["int32", ["anything"], []],
  ["password", ["anything"], []],
];

Deno.test("matchesFormat() checks the formats Kubernetes supports and ignores the rest", async (t) => {
  for (const [format, good, bad] of ROWS) {
    await t.step(format, () => {
      for (const v of good) assert.ok(matchesFormat(format, v), `${format} should accept ${v}`);
      for (const v of bad) assert.ok(!matchesFormat(format, v), `${format} should reject ${v}`);
    });
  }
});

Deno.test("normalizeFormat() folds names as strfmt does", () => {
  assert.strictEqual(normalizeFormat("date-time"), "datetime");
  assert.strictEqual(normalizeFormat("DateTime"), "datetime");
});
