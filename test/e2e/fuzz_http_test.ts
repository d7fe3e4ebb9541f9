/**
 * Seeded, bounded fuzzers of the wire below the API: mutated HTTP/1.1 request heads and chunked
 * bodies, and random HTTP/2 frames after a valid preface, sent over TLS to the real server.
 * Invariants: no 5xx other than 501 and 505 (correct answers to unknown codings and versions),
 * every connection is answered or closed within a generous deadline, no unhandled rejection, and
 * `/readyz` keeps answering. Replay a failure with `FUZZ_SEED=<n>`.
 */
import assert from "node:assert/strict";
import { encodeHeaders } from "../../shared/http/hpack.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const CONNECTIONS = Number(Deno.env.get("FUZZ_CONNECTIONS") ?? 150);
/** How long a connection may stay unanswered and open (the machine pauses at times). */
const DEADLINE_MS = 30_000;

/** A small seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff);

/** Valid HTTP/1.1 requests to start from (`TOKEN` is replaced by the admin token). */
function templates(): string[] {
  const cm = '{"metadata":{"generateName":"f-"}}';
  const chunked = `${cm.length.toString(16)}\r\n${cm}\r\n0\r\n\r\n`;
  return [
    "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /api/v1/namespaces/default/configmaps?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\n\r\n",
    `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nContent-Length: ${cm.length}\r\n\r\n${cm}`,
    `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`,
  ];
}

const SPLICES = [
  "\n",
  "\r",
  "\r\n",
  "\0",
  " ",
  ":",
  "\t",
  "zz",
  "-1",
  "ffffffffffffffff",
  ";ext=1",
  "\r\n\r\n",
  "Transfer-Encoding: chunked\r\n",
  "Content-Length: 5\r\n",
  "Content-Length: -1\r\n",
  "Expect: 100-continue\r\n",
  "HTTP/1.0",
  "HTTP/2.0",
  "\u00ff",
  "x".repeat(9000),
];

/** A valid request with a few random edits. */
function http1Request(r: Rand, token: string): Uint8Array {
  let text = pick(r, templates()).replace("TOKEN", token);
  const edits = 1 + Math.floor(r() * 3);
  for (let e = 0; e < edits; e++) {
    const i = Math.floor(r() * (text.length + 1));
    const roll = r();
    if (roll < 0.45) text = text.slice(0, i) + pick(r, SPLICES) + text.slice(i);
    else if (roll < 0.7) text = text.slice(0, i) + text.slice(i + 1 + Math.floor(r() * 4));
    else if (roll < 0.85) text = text.slice(0, i);
    else text += pick(r, templates()).replace("TOKEN", token); // pipelined
  }
  return latin1(text);
}

/** One frame: 9-byte header and payload. */
function frame(type: number, flags: number, stream: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(9 + payload.length);
  out[0] = (payload.length >>> 16) & 0xff;
  out[1] = (payload.length >>> 8) & 0xff;
  out[2] = payload.length & 0xff;
  out[3] = type;
  out[4] = flags;
  new DataView(out.buffer).setUint32(5, stream >>> 0);
  out.set(payload, 9);
  return out;
}

/** The client preface and SETTINGS, then random frames around valid requests. */
function http2Bytes(r: Rand, token: string): Uint8Array {
  const parts: Uint8Array[] = [
    latin1("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    frame(4, 0, 0, new Uint8Array()),
  ];
  const block = encodeHeaders([
    ":method",
    pick(r, ["GET", "POST", "BOGUS", ""]),
    ":scheme",
    "https",
    ":path",
    pick(r, ["/readyz", "/api/v1/namespaces/default/configmaps", "", "*", "/%ff"]),
    ":authority",
    "x",
    "authorization",
    `Bearer ${token}`,
  ]);
  const count = 1 + Math.floor(r() * 12);
  let stream = 1;
  for (let i = 0; i < count; i++) {
    const roll = r();
    if (roll < 0.35) {
      parts.push(frame(1, pick(r, [4, 5, 0, 0x24]), stream, block)); // HEADERS
      stream += pick(r, [2, 2, 2, 0, 1]);
    } else if (roll < 0.5) {
      parts.push(frame(0, pick(r, [0, 1, 8]), pick(r, [1, stream, 0, 2]), latin1('{"a":1}'))); // DATA
    } else if (roll < 0.6) {
      parts.push(frame(3, 0, pick(r, [1, stream - 2, 0]), Uint8Array.of(0, 0, 0, 8))); // RST_STREAM
    } else if (roll < 0.7) {
      const n = Math.floor(r() * 4) * 6 + pick(r, [0, 0, 1]);
      const payload = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
      parts.push(frame(4, pick(r, [0, 1]), pick(r, [0, 1]), payload)); // SETTINGS
    } else if (roll < 0.8) {
      parts.push(
        frame(
          8,
          0,
          pick(r, [0, 1, stream]),
          Uint8Array.of(0x7f, 0xff, 0xff, pick(r, [0xff, 0, 1])),
        ),
      ); // WINDOW_UPDATE
    } else {
      const n = Math.floor(r() * 40);
      const payload = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
      parts.push(frame(Math.floor(r() * 12), Math.floor(r() * 256), Math.floor(r() * 8), payload));
    }
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Sends `bytes`, reads until the server closes or the deadline, and returns what came back. */
async function exchange(s: TestServer, bytes: Uint8Array, alpn: string[]): Promise<Uint8Array> {
  const { hostname, port } = new URL(s.server.url);
  const conn = await Deno.connectTls({
    hostname,
    port: Number(port),
    caCerts: [s.server.caPem],
    alpnProtocols: alpn,
  });
  const chunks: Uint8Array[] = [];
  const deadline = setTimeout(() => {
    try {
      conn.close();
    } catch { /* closed */ }
  }, DEADLINE_MS);
  let timedOut = true;
  try {
    await conn.write(bytes).catch(() => {});
    await conn.closeWrite().catch(() => {});
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) {
        timedOut = false;
        break;
      }
      chunks.push(buf.slice(0, n));
    }
  } finally {
    clearTimeout(deadline);
    try {
      conn.close();
    } catch { /* closed */ }
  }
  assert.ok(!timedOut, "the connection was neither answered nor closed");
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The status codes of the HTTP/1.1 responses in `bytes`. */
function http1Statuses(bytes: Uint8Array): number[] {
  const text = new TextDecoder("latin1").decode(bytes);
  return [...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
}

/** The `:status` values of the HTTP/2 HEADERS frames in `bytes` (indexed 5xx entries only). */
function http2ServerErrors(bytes: Uint8Array): number[] {
  // HPACK's static table has only 500 as an indexed 5xx (index 14); literal 5xx carry "5".
  const found: number[] = [];
  let at = 0;
  while (at + 9 <= bytes.length) {
    const len = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
    const type = bytes[at + 3];
    if (type === 1 && at + 9 < bytes.length && bytes[at + 9] === 0x8e) found.push(500);
    at += 9 + len;
  }
  return found;
}

async function fuzz(
  label: string,
  make: (r: Rand, token: string) => Uint8Array,
  statuses: (bytes: Uint8Array) => number[],
  alpn: string[],
): Promise<void> {
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  const r = random(seed);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: PromiseRejectionEvent) => {
    unhandled.push(e.reason);
    e.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  const s = await startTestServer();
  let last = "";
  try {
    for (let i = 0; i < CONNECTIONS; i++) {
      const bytes = make(r, s.server.adminToken);
      last = new TextDecoder("latin1").decode(bytes.slice(0, 300)).replaceAll(
        s.server.adminToken,
        "TOKEN",
      );
      const answer = await exchange(s, bytes, alpn);
      for (const code of statuses(answer)) {
        assert.ok(code < 500 || code === 501 || code === 505, `answered ${code}`);
      }
      if (i % 25 === 0) {
        const ready = await s.fetch("/readyz", { signal: AbortSignal.timeout(DEADLINE_MS) });
        assert.equal(ready.status, 200);
        await ready.body?.cancel();
      }
    }
    assert.deepEqual(unhandled, []);
  } catch (err) {
    throw new Error(
      `${label} fuzz failed with FUZZ_SEED=${seed} after: ${JSON.stringify(last)}\n${
        (err as Error).message
      }`,
      { cause: err },
    );
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
    await s.close();
  }
}

Deno.test("the listener answers fuzzed HTTP/1.1 framing with 4xx or a close, never 5xx", async () => {
  await fuzz("HTTP/1.1", http1Request, http1Statuses, ["http/1.1"]);
});

Deno.test("the listener survives fuzzed HTTP/2 frames", async () => {
  await fuzz("HTTP/2", http2Bytes, http2ServerErrors, ["h2"]);
});
