import assert from "node:assert/strict";
import { HttpParseError, parseRequestHead } from "../../../shared/http/request_head.ts";

Deno.test("parseRequestHead() reads the request line, fields and body framing", async (t) => {
  const cases: [string, string, Partial<ReturnType<typeof parseRequestHead>>][] = [
    ["GET without body", "GET /api/v1?x=1 HTTP/1.1\r\nHost: a:1\r\nAccept: */*", {
      method: "GET",
      target: "/api/v1?x=1",
      minorVersion: 1,
      host: "a:1",
      rawHeaders: ["Host", "a:1", "Accept", "*/*"],
      body: { kind: "none" },
      keepAlive: true,
      expectContinue: false,
    }],
    ["Content-Length", "POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 12", {
      body: { kind: "length", length: 12 },
    }],
    ["zero Content-Length", "POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 0", {
      body: { kind: "none" },
    }],
    ["repeated equal Content-Length", "PUT / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3", {
      body: { kind: "length", length: 3 },
    }],
    ["chunked", "POST / HTTP/1.1\r\nTransfer-Encoding:  Chunked \r\nExpect: 100-continue", {
      body: { kind: "chunked" },
      expectContinue: true,
    }],
    ["Connection: close", "GET / HTTP/1.1\r\nConnection: keep-alive, Close", { keepAlive: false }],
    ["HTTP/1.0 closes", "GET / HTTP/1.0", { minorVersion: 0, keepAlive: false }],
    ["HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive", { keepAlive: true }],
    ["leading empty lines", "\r\n\r\nGET / HTTP/1.1", { method: "GET" }],
    ["value whitespace trimmed", "GET / HTTP/1.1\r\nX-A: \t v w \t", {
      rawHeaders: ["X-A", "v w"],
    }],
    ["empty value", "GET / HTTP/1.1\r\nX-A:", { rawHeaders: ["X-A", ""] }],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => {
      const head = parseRequestHead(text);
      for (const [k, v] of Object.entries(want)) {
        assert.deepEqual(head[k as keyof typeof head], v, k);
      }
    });
  }
});

Deno.test("parseRequestHead() refuses malformed and ambiguous heads", async (t) => {
  const cases: [string, string, number][] = [
    ["no target", "GET HTTP/1.1", 400],
    ["two spaces", "GET  / HTTP/1.1", 400],
    ["bad method", "G(T / HTTP/1.1", 400],
    ["control in target", "GET /a\x01 HTTP/1.1", 400],
    ["HTTP/2.0", "GET / HTTP/2.0", 505],
    ["not HTTP", "GET / FTP/1.1", 400],
    ["space before colon", "GET / HTTP/1.1\r\nHost : a", 400],
    ["no colon", "GET / HTTP/1.1\r\nHost", 400],
    ["obs-fold", "GET / HTTP/1.1\r\nX-A: 1\r\n 2", 400],
    ["NUL in value", "GET / HTTP/1.1\r\nX-A: a\x00b", 400],
    ["two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b", 400],
    ["conflicting lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2", 400],
    ["signed length", "POST / HTTP/1.1\r\nContent-Length: +1", 400],
    [
      "length and chunked",
      "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked",
      400,
    ],
    ["gzip coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked", 501],
    ["chunked in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked", 400],
  ];
  for (const [name, text, status] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => parseRequestHead(text),
        (err: unknown) => err instanceof HttpParseError && err.status === status,
      );
    });
  }
});
