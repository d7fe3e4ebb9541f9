import assert from "node:assert/strict";
import { goJsonSyntaxError, goQuoteChar } from "../../../shared/json/go_json_syntax_error.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("goJsonSyntaxError() words each syntax error as Go's encoding/json", async (t) => {
  const cases: [string, string | undefined][] = [
    ['{"a": [1, 2.5e3, true, false, null, "x\\u00e9"]}', undefined],
    ["", "unexpected end of JSON input"],
    ["{", "unexpected end of JSON input"],
    ['"abc', "unexpected end of JSON input"],
    ["{x", "invalid character 'x' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 2}', "invalid character '2' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["nax", "invalid character 'a' in literal null (expecting 'u')"],
    ["-", "invalid character ' ' in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ['"\n"', "invalid character '\\n' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
  ];
  for (const [text, want] of cases) {
    await t.step(JSON.stringify(text), () => assert.equal(goJsonSyntaxError(enc(text)), want));
  }
});

Deno.test("goQuoteChar() quotes a byte as Go's quoteChar", () => {
  assert.equal(goQuoteChar(0x78), "'x'");
  assert.equal(goQuoteChar(0x00), "'\\x00'");
  assert.equal(goQuoteChar(0x09), "'\\t'");
  assert.equal(goQuoteChar(0x22), "'\"'");
  assert.equal(goQuoteChar(0xc3), "'Ã'");
  assert.equal(goQuoteChar(0x85), "'\\u0085'");
});
