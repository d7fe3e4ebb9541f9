import assert from "node:assert/strict";
import { ChunkedBodyError, ChunkedDecoder } from "../../../shared/http/chunked_decoder.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Feeds `input` in pieces of `step` bytes; returns the body and the bytes after it. */
function decode(input: string, step: number): { body: string; rest: string; done: boolean } {
  const d = new ChunkedDecoder();
  const bytes = enc.encode(input);
  let body = "";
  let rest = "";
  for (let i = 0; i < bytes.length; i += step) {
    const piece = bytes.subarray(i, i + step);
    if (d.done) {
      rest += dec.decode(piece);
      continue;
    }
    const used = d.push(piece, (data) => body += dec.decode(data));
    rest += dec.decode(piece.subarray(used));
  }
  return { body, rest, done: d.done };
}

Deno.test("ChunkedDecoder.push() decodes a body fed in any pieces", async (t) => {
  const input = "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: 1\r\n\r\nGET / HTTP/1.1";
  for (const step of [1, 2, 3, 7, 1000]) {
    await t.step(`pieces of ${step}`, () => {
      assert.deepEqual(decode(input, step), {
        body: "hello, world",
        rest: "GET / HTTP/1.1",
        done: true,
      });
    });
  }
  await t.step("incomplete", () => {
    assert.deepEqual(decode("5\r\nhel", 4), { body: "hel", rest: "", done: false });
  });
});

Deno.test("ChunkedDecoder.push() refuses malformed framing", async (t) => {
  const cases: [string, string][] = [
    ["size not hex", "zz\r\n"],
    ["data not followed by CRLF", "2\r\nabc\r\n"],
    ["bare LF", "2\nab\r\n"],
    ["size too long", `${"1".repeat(13)}\r\n`],
    ["endless size line", "1".repeat(5000)],
  ];
  for (const [name, input] of cases) {
    await t.step(name, () => {
      assert.throws(() => new ChunkedDecoder().push(enc.encode(input), () => {}), ChunkedBodyError);
    });
  }
});
