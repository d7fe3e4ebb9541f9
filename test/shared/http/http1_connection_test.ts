import assert from "node:assert/strict";
import { serveHttps } from "../../../shared/http/https_server.ts";
import type { HttpsHandler, HttpsServer } from "../../../shared/http/https_server.ts";
import { servingPki, withHttpsServer } from "../../support/test_pki.ts";

const { ca, serving } = await servingPki();

function withServer(
  handler: HttpsHandler,
  fn: (server: HttpsServer) => Promise<void>,
): Promise<void> {
  return withHttpsServer(serving, handler, fn);
}

/** A raw TLS connection: write bytes, read text until a condition holds or the server closes. */
async function connect(port: number) {
  const conn = await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts: [ca.certPem] });
  const decoder = new TextDecoder();
  let text = "";
  let closed = false;
  const reading = (async () => {
    const buf = new Uint8Array(65536);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        text += decoder.decode(buf.subarray(0, n), { stream: true });
      }
    } catch { /* reset */ }
    closed = true;
  })();
  return {
    async write(s: string): Promise<void> {
      const bytes = new TextEncoder().encode(s);
      for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
    },
    /** Waits (generously) until `pred` holds for the text so far; fails after 20 s. */
    async until(pred: (text: string, closed: boolean) => boolean): Promise<string> {
      const deadline = Date.now() + 20_000;
      while (!pred(text, closed)) {
        if (Date.now() > deadline) throw new Error(`gave up waiting; got ${JSON.stringify(text)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return text;
    },
    get closed() {
      return closed;
    },
    async close() {
      try {
        conn.close();
      } catch { /* already closed */ }
      await reading;
    },
  };
}

const echo: HttpsHandler = async (req) =>
  new Response(`${req.method} ${new URL(req.url).pathname} ${await req.text()}`);

Deno.test("Http1Connection answers pipelined requests in order on one connection", async () => {
  await withServer(echo, async (server) => {
    const c = await connect(server.port);
    try {
      await c.write(
        "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none" +
          "GET /b HTTP/1.1\r\nHost: x\r\n\r\n" +
          "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n",
      );
      const text = await c.until((t) => t.includes("POST /c two"));
      const bodies = [...text.matchAll(/\r\n\r\n([A-Z]+ \/[a-z] [a-z]*)/g)].map((m) => m[1]);
      assert.deepEqual(bodies, ["POST /a one", "GET /b ", "POST /c two"]);
      assert.equal(c.closed, false);
    } finally {
      await c.close();
    }
  });
});

Deno.test("Http1Connection sends 100 Continue to a client that waits for it", async () => {
  await withServer(echo, async (server) => {
    const c = await connect(server.port);
    try {
      await c.write(
        "PUT /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n",
      );
      await c.until((t) => t.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
      await c.write("body");
      const text = await c.until((t) => t.includes("PUT /e body"));
      assert.match(text, /HTTP\/1\.1 200 OK\r\n/);
    } finally {
      await c.close();
    }
  });
});

Deno.test("Http1Connection answers a bad head with a Status and closes", async (t) => {
  const cases: [string, string, number][] = [
    ["malformed request line", "GARBAGE\r\n\r\n", 400],
    [
      "smuggling framing",
      "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
      400,
    ],
    ["HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", 505],
    ["head too large", `GET / HTTP/1.1\r\nX-Big: ${"a".repeat(1024 * 1024 + 10)}\r\n\r\n`, 431],
  ];
  await withServer(echo, async (server) => {
    for (const [name, input, status] of cases) {
      await t.step(name, async () => {
        const c = await connect(server.port);
        try {
          await c.write(input).catch(() => {});
          const text = await c.until((_t, closed) => closed);
          assert.match(text, new RegExp(`^HTTP/1\\.1 ${status} `));
          assert.match(text, /connection: close\r\n/);
          const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
          assert.equal(body.kind, "Status");
          assert.equal(body.code, status);
        } finally {
          await c.close();
        }
      });
    }
  });
});

Deno.test("Http1Connection answers a head that cannot become valid at once, not at its timeout", async (t) => {
  const cases: [string, string][] = [
    ["lines ended by bare LF", "GET / HTTP/1.1\nHost: x\n\n"],
    ["lines ended by bare CR", "GET / HTTP/1.1\rHost: x\r\r"],
    ["a control character", "GET / HTTP/1.1\r\nHost: x\x01"],
    ["binary garbage", "\x16\x03\x01\x02\x00\x01\x00"],
    ["not a method", '{"kind":'],
  ];
  // The head timeout is far beyond the test's deadline: only an answer at once passes.
  await withHttpsServer(serving, echo, async (server) => {
    for (const [name, input] of cases) {
      await t.step(name, async () => {
        const c = await connect(server.port);
        try {
          await c.write(input).catch(() => {});
          const text = await c.until((_t, closed) => closed);
          assert.match(text, /^HTTP\/1\.1 400 /);
        } finally {
          await c.close();
        }
      });
    }
  }, { readHeaderTimeoutMs: 600_000 });
});

Deno.test("serveHttps() answers a malformed chunked body 400 without logging an error", async (t) => {
  const cases: [string, string][] = [
    ["malformed chunk size", "zz\r\nabc\r\n0\r\n\r\n"],
    ["chunk data not followed by CRLF", "3\r\nabcXY0\r\n\r\n"],
    ["line not ended by CRLF", "3\nabc\r\n0\r\n\r\n"],
    ["chunk line too long", `3;${"e".repeat(5000)}\r\nabc\r\n0\r\n\r\n`],
  ];
  const errors: unknown[] = [];
  await withHttpsServer(serving, echo, async (server) => {
    for (const [name, body] of cases) {
      await t.step(name, async () => {
        const c = await connect(server.port);
        try {
          await c.write(
            `POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
          ).catch(() => {});
          const text = await c.until((_t, closed) => closed);
          assert.match(text, /^HTTP\/1\.1 400 /);
          const status = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
          assert.equal(status.reason, "BadRequest");
          assert.match(status.message, /chunked/);
        } finally {
          await c.close();
        }
      });
    }
  }, { onError: (err) => errors.push(err) });
  assert.deepEqual(errors, []);
});

Deno.test("Http1Connection streams to an HTTP/1.0 client until it closes", async () => {
  await withServer(() => {
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode("a"));
        await new Promise((r) => setTimeout(r, 20));
        controller.enqueue(new TextEncoder().encode("b"));
        controller.close();
      },
    });
    return new Response(body);
  }, async (server) => {
    const c = await connect(server.port);
    try {
      await c.write("GET /s HTTP/1.0\r\n\r\n");
      const text = await c.until((_t, closed) => closed);
      assert.doesNotMatch(text, /transfer-encoding/);
      assert.match(text, /connection: close\r\n/);
      assert.ok(text.endsWith("\r\n\r\nab"), text);
    } finally {
      await c.close();
    }
  });
});

Deno.test("Http1Connection closes after a response to a body it did not read", async () => {
  await withServer(() => new Response("early"), async (server) => {
    const c = await connect(server.port);
    try {
      // 100 KiB declared, only part of it sent: the body is streamed, and nobody reads it.
      await c.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${100 * 1024}\r\n\r\nxyz`);
      const text = await c.until((_t, closed) => closed);
      assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(text, /connection: close\r\n/);
      assert.ok(text.endsWith("early"));
    } finally {
      await c.close();
    }
  });
});

Deno.test("Http1Connection closes idle keep-alive connections and stalled heads", async (t) => {
  let now = 0;
  const serve = (idleTimeoutMs: number, readHeaderTimeoutMs: number) =>
    serveHttps(() => new Response("ok"), {
      hostname: "127.0.0.1",
      port: 0,
      certPem: serving.certPem,
      keyPem: serving.keyPem,
      requestClientCert: false,
      idleTimeoutMs,
      readHeaderTimeoutMs,
      now: () => now,
    });
  await t.step("idle after a response", async () => {
    const server = await serve(1000, 1e9);
    const c = await connect(server.port);
    try {
      await c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      await c.until((text) => text.endsWith("ok"));
      now += 999;
      // The sweep runs every 500 ms of real time; the clock has not passed the timeout.
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(c.closed, false);
      now += 2;
      await c.until((_t, closed) => closed);
    } finally {
      await c.close();
      await server.close();
    }
  });
  await t.step("a head that never ends", async () => {
    const server = await serve(1e9, 500);
    const c = await connect(server.port);
    try {
      await c.write("GET / HTTP/1.1\r\nHost: x\r\n");
      // The clock moves on until the server, having seen the partial head, gives up on it.
      await c.until((_t, closed) => {
        now += 501;
        return closed;
      });
    } finally {
      await c.close();
      await server.close();
    }
  });
});
