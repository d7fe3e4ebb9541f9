import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { encodeHeaders, HpackDecoder } from "../../../shared/http/hpack.ts";
import { encodeFrame } from "../../../shared/http/http2_frame.ts";
import { requestHeadOf } from "../../../shared/http/http2_request_head.ts";
import { type HttpsHandler, type HttpsServer } from "../../../shared/http/https_server.ts";
import { servingPki, withHttpsServer } from "../../support/test_pki.ts";

const { ca, serving } = await servingPki();

function withServer(
  handler: HttpsHandler,
  fn: (server: HttpsServer) => Promise<void>,
  extra = {},
): Promise<void> {
  return withHttpsServer(serving, handler, fn, extra);
}

/** An HTTP/2-only fetch client (hyper) trusting the test CA. */
function h2Client(): Deno.HttpClient {
  return Deno.createHttpClient({ caCerts: [ca.certPem], http2: true, http1: false });
}

interface Frame {
  type: number;
  flags: number;
  id: number;
  payload: Uint8Array;
}

const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

const frame = encodeFrame;

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/**
 * A raw HTTP/2 connection that has sent the preface and an empty SETTINGS frame (or only
 * `preface`, when given).
 */
async function rawH2(port: number, preface?: string) {
  const conn = await Deno.connectTls({
    hostname: "127.0.0.1",
    port,
    caCerts: [ca.certPem],
    alpnProtocols: ["h2"],
  });
  const frames: Frame[] = [];
  let closed = false;
  let pending = new Uint8Array(0);
  const reading = (async () => {
    const buf = new Uint8Array(65536);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        const joined = new Uint8Array(pending.length + n);
        joined.set(pending);
        joined.set(buf.subarray(0, n), pending.length);
        let at = 0;
        while (joined.length - at >= 9) {
          const len = (joined[at] << 16) | (joined[at + 1] << 8) | joined[at + 2];
          if (joined.length - at < 9 + len) break;
          frames.push({
            type: joined[at + 3],
            flags: joined[at + 4],
            id: new DataView(joined.buffer, at + 5, 4).getUint32(0) & 0x7fffffff,
            payload: joined.slice(at + 9, at + 9 + len),
          });
          at += 9 + len;
        }
        pending = joined.slice(at);
      }
    } catch { /* reset */ }
    closed = true;
  })();
  const raw = {
    frames,
    async write(bytes: Uint8Array | string): Promise<void> {
      const b = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
      for (let off = 0; off < b.length;) off += await conn.write(b.subarray(off));
    },
    /** Waits (generously) until a frame matching `pred` arrived; fails after 20 s. */
    async until(pred: (f: Frame) => boolean): Promise<Frame> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const f = frames.find(pred);
        if (f) return f;
        if (Date.now() > deadline || closed) {
          throw new Error(`no such frame; got types ${frames.map((f) => f.type).join(",")}`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async untilClosed(): Promise<void> {
      const deadline = Date.now() + 20_000;
      while (!closed) {
        if (Date.now() > deadline) throw new Error("the server did not close the connection");
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    /** Sends a request's header block on stream `id`. */
    headers(id: number, fields: string[], endStream = true): Promise<void> {
      return raw.write(frame(0x1, 0x4 | (endStream ? 0x1 : 0), id, encodeHeaders(fields)));
    },
    async close() {
      try {
        conn.close();
      } catch { /* already closed */ }
      await reading;
    },
  };
  if (preface !== undefined) {
    await raw.write(preface);
    return raw;
  }
  await raw.write(PREFACE);
  await raw.write(frame(0x4, 0, 0));
  return raw;
}

const GET = (path: string) => [
  ":method",
  "GET",
  ":scheme",
  "https",
  ":path",
  path,
  ":authority",
  "localhost",
];

function goawayCode(f: Frame): number {
  return new DataView(f.payload.buffer, f.payload.byteOffset).getUint32(4);
}

function rstCode(f: Frame): number {
  return new DataView(f.payload.buffer, f.payload.byteOffset).getUint32(0);
}

const echo: HttpsHandler = async (req) => {
  const body = new Uint8Array(await req.arrayBuffer());
  let sum = 0;
  for (const b of body) sum = (sum + b) % 65521;
  return new Response(
    `${req.method} ${new URL(req.url).pathname} ${body.length} ${sum} ${req.headers.get("x-test")}`,
  );
};

Deno.test("serveHttps() speaks HTTP/2 to a client that offers h2", async (t) => {
  const seenPorts = new Set<number>();
  const handler: HttpsHandler = (req, conn) => {
    seenPorts.add(conn.remoteAddr.port);
    return echo(req, conn);
  };
  await withServer(handler, async (server) => {
    const client = h2Client();
    const base = `https://localhost:${server.port}`;
    try {
      await t.step("GET with headers", async () => {
        const res = await fetch(`${base}/a?b=c`, { client, headers: { "x-test": "hello" } });
        assert.equal(res.status, 200);
        assert.equal(await res.text(), "GET /a 0 0 hello");
        assert.ok(res.headers.get("date"));
        assert.equal(res.headers.get("content-length"), "16");
      });
      for (const size of [10, 70_000, 1_000_000]) {
        await t.step(`POST with a ${size}-byte body`, async () => {
          const body = new Uint8Array(size).map((_, i) => i * 7);
          let sum = 0;
          for (const b of body) sum = (sum + b) % 65521;
          const res = await fetch(`${base}/p`, { client, method: "POST", body });
          assert.equal(await res.text(), `POST /p ${size} ${sum} null`);
        });
      }
      await t.step("a streamed request body without a length", async () => {
        const chunks = [new Uint8Array(300_000).fill(1), new Uint8Array(5).fill(2)];
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            const next = chunks.shift();
            if (next) c.enqueue(next);
            else c.close();
          },
        });
        const res = await fetch(`${base}/s`, { client, method: "PUT", body });
        assert.equal(await res.text(), `PUT /s 300005 ${(300_000 + 10) % 65521} null`);
      });
      await t.step("many requests at once share one connection", async () => {
        seenPorts.clear();
        const results = await Promise.all(
          Array.from(
            { length: 50 },
            (_, i) => fetch(`${base}/r${i}`, { client }).then((r) => r.text()),
          ),
        );
        results.forEach((text, i) => assert.equal(text, `GET /r${i} 0 0 null`));
        assert.equal(seenPorts.size, 1);
      });
    } finally {
      client.close();
    }
  });
});

Deno.test("serveHttps() sends a large HTTP/2 response within the client's flow-control windows", async () => {
  const big = new Uint8Array(8 * 1024 * 1024).map((_, i) => i & 0xff);
  await withServer(() => new Response(big), async (server) => {
    const client = h2Client();
    try {
      const res = await fetch(`https://localhost:${server.port}/big`, { client });
      const got = new Uint8Array(await res.arrayBuffer());
      assert.equal(got.length, big.length);
      assert.deepEqual(got.subarray(got.length - 1000), big.subarray(big.length - 1000));
    } finally {
      client.close();
    }
  });
});

Deno.test("serveHttps() streams an HTTP/2 response and sees the client reset it", async () => {
  let aborted: () => void;
  const abortedP = new Promise<void>((r) => aborted = r);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const handler: HttpsHandler = (_req, conn) => {
    conn.signal.addEventListener("abort", () => aborted());
    return new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
          c.enqueue(new TextEncoder().encode("first\n"));
        },
      }),
    );
  };
  await withServer(handler, async (server) => {
    const client = h2Client();
    try {
      const res = await fetch(`https://localhost:${server.port}/watch`, { client });
      const reader = res.body!.getReader();
      assert.equal(new TextDecoder().decode((await reader.read()).value), "first\n");
      controller.enqueue(new TextEncoder().encode("second\n"));
      assert.equal(new TextDecoder().decode((await reader.read()).value), "second\n");
      await reader.cancel();
      await abortedP;
    } finally {
      client.close();
    }
  });
});

Deno.test("serveHttps() offers HTTP/1.1 only when http2 is off", async () => {
  await withServer(echo, async (server) => {
    const conn = await Deno.connectTls({
      hostname: "127.0.0.1",
      port: server.port,
      caCerts: [ca.certPem],
      alpnProtocols: ["h2", "http/1.1"],
    });
    const hs = await conn.handshake();
    assert.equal(hs.alpnProtocol, "http/1.1");
    conn.close();
  }, { http2: false });
});

Deno.test("serveHttps() answers HTTP/2 with curl (Huffman and indexed header fields)", async (t) => {
  const curl = await new Deno.Command("curl", { args: ["--version"] }).output().catch(() => null);
  if (!curl?.success || !new TextDecoder().decode(curl.stdout).includes("HTTP2")) {
    console.log("curl with HTTP/2 is not on this machine: skipped");
    return;
  }
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ca.pem`, ca.certPem);
    await withServer(echo, async (server) => {
      for (const n of [1, 3]) {
        await t.step(`${n} requests on one connection`, async () => {
          const url = `https://localhost:${server.port}/c`;
          const out = await new Deno.Command("curl", {
            args: [
              "-sS",
              "--http2",
              "--cacert",
              `${dir}/ca.pem`,
              "-H",
              "x-test: a-much-longer-value-that-huffman-codes",
              "-w",
              " %{http_version}\\n",
              ...Array.from({ length: n }, () => url),
            ],
          }).output();
          assert.equal(new TextDecoder().decode(out.stderr), "");
          assert.equal(
            new TextDecoder().decode(out.stdout),
            "GET /c 0 0 a-much-longer-value-that-huffman-codes 2\n".repeat(n),
          );
        });
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Http2Connection answers protocol errors as RFC 9113 says", async (t) => {
  await withServer(echo, async (server) => {
    const cases: {
      name: string;
      send: (c: Awaited<ReturnType<typeof rawH2>>) => Promise<void>;
      expect: (c: Awaited<ReturnType<typeof rawH2>>) => Promise<void>;
      preface?: string;
    }[] = [
      {
        name: "PING is acknowledged with its payload",
        send: (c) => c.write(frame(0x6, 0, 0, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))),
        expect: async (c) => {
          const f = await c.until((f) => f.type === 0x6 && f.flags === 1);
          assert.deepEqual([...f.payload], [1, 2, 3, 4, 5, 6, 7, 8]);
        },
      },
      {
        name: "an upper-case field name resets the stream",
        send: (c) => c.headers(1, [...GET("/"), "X-Bad", "1"]),
        expect: async (c) => {
          const f = await c.until((f) => f.type === 0x3 && f.id === 1);
          assert.equal(rstCode(f), 0x1);
        },
      },
      {
        name: "a connection-specific field resets the stream",
        send: (c) => c.headers(1, [...GET("/"), "connection", "keep-alive"]),
        expect: async (c) => {
          const f = await c.until((f) => f.type === 0x3 && f.id === 1);
          assert.equal(rstCode(f), 0x1);
        },
      },
      {
        name: "a missing :path resets the stream, and the next stream is served",
        send: async (c) => {
          await c.headers(1, [":method", "GET", ":scheme", "https"]);
          await c.headers(3, GET("/next"));
        },
        expect: async (c) => {
          assert.equal(rstCode(await c.until((f) => f.type === 0x3 && f.id === 1)), 0x1);
          const data = await c.until((f) => f.type === 0x0 && f.id === 3);
          assert.equal(new TextDecoder().decode(data.payload), "GET /next 0 0 null");
        },
      },
      {
        name: "DATA on an idle stream is a connection error",
        send: (c) => c.write(frame(0x0, 0x1, 7, new Uint8Array(3))),
        expect: async (c) => {
          const f = await c.until((f) => f.type === 0x7);
          assert.equal(goawayCode(f), 0x1);
          await c.untilClosed();
        },
      },
      {
        name: "a body longer than its content-length resets the stream",
        send: async (c) => {
          await c.headers(
            1,
            [...GET("/"), "content-length", "2"].map((v) => v === "GET" ? "POST" : v),
            false,
          );
          await c.write(frame(0x0, 0x1, 1, new Uint8Array(5)));
        },
        expect: async (c) => {
          assert.equal(rstCode(await c.until((f) => f.type === 0x3 && f.id === 1)), 0x1);
        },
      },
      {
        name: "a header block that cannot be decoded is a COMPRESSION_ERROR",
        send: (c) => c.write(frame(0x1, 0x5, 1, new Uint8Array([0x80]))),
        expect: async (c) => {
          assert.equal(goawayCode(await c.until((f) => f.type === 0x7)), 0x9);
        },
      },
      {
        name: "CONTINUATION without HEADERS is a PROTOCOL_ERROR",
        send: (c) => c.write(frame(0x9, 0x4, 1, encodeHeaders(GET("/")))),
        expect: async (c) => {
          assert.equal(goawayCode(await c.until((f) => f.type === 0x7)), 0x1);
        },
      },
      {
        name: "a frame larger than 16384 bytes is a FRAME_SIZE_ERROR",
        send: (c) => c.write(frame(0x0, 0, 1, new Uint8Array(16_385))),
        expect: async (c) => {
          assert.equal(goawayCode(await c.until((f) => f.type === 0x7)), 0x6);
        },
      },
      {
        name: "a bad preface gets GOAWAY",
        preface: "GET / HTTP/1.1\r\n\r\n",
        send: () => Promise.resolve(),
        expect: async (c) => {
          assert.equal(goawayCode(await c.until((f) => f.type === 0x7)), 0x1);
          await c.untilClosed();
        },
      },
    ];
    for (const tc of cases) {
      await t.step(tc.name, async () => {
        const c = await rawH2(server.port, tc.preface);
        try {
          await tc.send(c);
          await tc.expect(c);
        } finally {
          await c.close();
        }
      });
    }
  });
});

Deno.test("Http2Connection refuses streams beyond its limit", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  await withServer(async () => {
    await gate;
    return new Response("ok");
  }, async (server) => {
    const c = await rawH2(server.port);
    try {
      for (const id of [1, 3, 5]) await c.headers(id, GET("/"));
      const f = await c.until((f) => f.type === 0x3 && f.id === 5);
      assert.equal(rstCode(f), 0x7);
      release();
      await c.until((f) => f.type === 0x0 && f.id === 3 && (f.flags & 1) === 1);
      // The server's SETTINGS carried the limit.
      const settings = await c.until((f) => f.type === 0x4 && f.flags === 0);
      const values = new Map<number, number>();
      const v = new DataView(settings.payload.buffer, settings.payload.byteOffset);
      for (let i = 0; i < settings.payload.length; i += 6) {
        values.set(v.getUint16(i), v.getUint32(i + 2));
      }
      assert.equal(values.get(0x3), 2);
    } finally {
      await c.close();
    }
  }, { http2MaxStreamsPerConnection: 2 });
});

Deno.test("Http2Connection counts streams the client reset until their handler finishes", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  let handlers = 0;
  await withServer(async () => {
    if (++handlers <= 2) await gate;
    return new Response("ok");
  }, async (server) => {
    const c = await rawH2(server.port);
    try {
      for (const id of [1, 3]) {
        await c.headers(id, GET("/"));
        await c.write(frame(0x3, 0, id, u32(0x8)));
      }
      // Both handlers still run: a third stream is over the limit.
      await c.headers(5, GET("/"));
      const refused = await c.until((f) => f.type === 0x3 && f.id === 5);
      assert.equal(rstCode(refused), 0x7);
      release();
      // Once they finished, there is room again (a refused stream may be retried at once, so
      // keep trying for a while).
      for (let id = 7; id < 7 + 2 * 200; id += 2) {
        await c.headers(id, GET("/"));
        const answer = await c.until((f) => (f.type === 0x1 || f.type === 0x3) && f.id === id);
        if (answer.type === 0x1) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail("no stream was accepted after the handlers finished");
    } finally {
      await c.close();
    }
  }, { http2MaxStreamsPerConnection: 2 });
});

Deno.test("Http2Connection closes a connection that keeps resetting streams (rapid reset)", async () => {
  await withServer(() => new Response("ok"), async (server) => {
    const c = await rawH2(server.port);
    const client = h2Client();
    try {
      const attack = (async () => {
        // HEADERS then RST_STREAM(CANCEL), a hundred pairs a write, until the server has had
        // enough (at most 20,000 streams, at most 60 s).
        const deadline = Date.now() + 60_000;
        const block = encodeHeaders(GET("/version"));
        for (let id = 1; id < 40_000 && Date.now() < deadline;) {
          if (c.frames.some((f) => f.type === 0x7)) return;
          const parts: Uint8Array[] = [];
          for (let i = 0; i < 100; i++, id += 2) {
            parts.push(frame(0x1, 0x5, id, block), frame(0x3, 0, id, u32(0x8)));
          }
          try {
            await c.write(Buffer.concat(parts));
          } catch {
            return; // closed by the server
          }
        }
      })();
      // Another client is served meanwhile.
      const res = await fetch(`https://localhost:${server.port}/readyz`, {
        client,
        signal: AbortSignal.timeout(30_000),
      });
      assert.equal(await res.text(), "ok");
      await attack;
      const goaway = await c.until((f) => f.type === 0x7);
      assert.equal(goawayCode(goaway), 0xb, "ENHANCE_YOUR_CALM");
      await c.untilClosed();
    } finally {
      client.close();
      await c.close();
    }
  });
});

Deno.test("Http2Connection waits for WINDOW_UPDATE before sending beyond the stream's window", async () => {
  const body = new Uint8Array(100_000).fill(9);
  await withServer(() => new Response(body), async (server) => {
    const c = await rawH2(server.port);
    try {
      // INITIAL_WINDOW_SIZE 1000 for streams.
      const s = new Uint8Array(6);
      new DataView(s.buffer).setUint16(0, 0x4);
      new DataView(s.buffer).setUint32(2, 1000);
      await c.write(frame(0x4, 0, 0, s));
      await c.headers(1, GET("/"));
      await c.until((f) => f.type === 0x0 && f.id === 1);
      await new Promise((r) => setTimeout(r, 100));
      const sent = () =>
        c.frames.filter((f) => f.type === 0x0 && f.id === 1).reduce(
          (n, f) => n + f.payload.length,
          0,
        );
      assert.equal(sent(), 1000);
      await c.write(frame(0x8, 0, 1, u32(200_000)));
      // The connection's window (65,535 bytes by default) holds the rest back.
      await c.until((f) => f.type === 0x0 && f.id === 1 && f.flags === 0 && sent() === 65_535);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(sent(), 65_535);
      await c.write(frame(0x8, 0, 0, u32(200_000)));
      await c.until((f) => f.type === 0x0 && f.id === 1 && (f.flags & 1) === 1);
      assert.equal(sent(), 100_000);
    } finally {
      await c.close();
    }
  });
});

Deno.test("requestHeadOf() maps pseudo-header fields to a request head", () => {
  const head = requestHeadOf(
    [...GET("/x?y=1"), "cookie", "a=1", "accept", "*/*", "cookie", "b=2"],
    true,
  );
  assert.equal(head.method, "GET");
  assert.equal(head.target, "/x?y=1");
  assert.equal(head.host, "localhost");
  assert.deepEqual(head.body, { kind: "none" });
  assert.deepEqual(head.rawHeaders, ["accept", "*/*", "cookie", "a=1; b=2", "host", "localhost"]);
  const post = requestHeadOf([...GET("/"), "content-length", "5"], false);
  assert.deepEqual(post.body, { kind: "length", length: 5 });
  assert.deepEqual(requestHeadOf(GET("/"), false).body, { kind: "chunked" });
});

Deno.test("encodeHeaders() output of the server decodes", () => {
  const fields = [":status", "200", "content-type", "application/json", "x-a", "b"];
  assert.deepEqual(new HpackDecoder().decode(encodeHeaders(fields)), fields);
  assert.ok(Buffer.byteLength(fields.join("")) > 0);
});
