import assert from "node:assert/strict";
import { encodeHeaders, HpackDecoder } from "../../shared/http/hpack.ts";
import { encodeFrame } from "../../shared/http/http2_frame.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { CM, cm, write } from "./_watch_helpers.ts";

/** What one watch stream of a {@link RawH2Watches} connection received. */
interface StreamLog {
  status: number;
  /** resourceVersions of the non-BOOKMARK events, in arrival order. */
  rvs: number[];
  /** The server ended the stream (END_STREAM or RST_STREAM). */
  ended: boolean;
  text: string;
}

const MAX_WINDOW = 2 ** 31 - 1;

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/**
 * Watch streams on one HTTP/2 connection, read only as far as the test lets it: `read(budget)`
 * takes at most `budget` bytes off the socket, so the test decides how fast the client is.
 * The windows are as large as HTTP/2 allows unless `streamWindow` is given; streams listed in
 * `starved` never get a WINDOW_UPDATE (their reader never reads).
 */
class RawH2Watches {
  readonly streams = new Map<number, StreamLog>();
  #conn: Deno.TlsConn;
  #pending = new Uint8Array(0);
  #read: Promise<number | null> | undefined;
  #buf = new Uint8Array(64 * 1024);
  #closed = false;
  #streamWindow: number;
  #starved: Set<number>;
  #hpack = new HpackDecoder();

  private constructor(conn: Deno.TlsConn, streamWindow: number, starved: number[]) {
    this.#conn = conn;
    this.#streamWindow = streamWindow;
    this.#starved = new Set(starved);
  }

  static async open(
    s: TestServer,
    opts: { streamWindow?: number; starved?: number[] } = {},
  ): Promise<RawH2Watches> {
    const url = new URL(s.server.url);
    const conn = await Deno.connectTls({
      hostname: url.hostname,
      port: Number(url.port),
      caCerts: [s.server.caPem],
      alpnProtocols: ["h2"],
    });
    const w = new RawH2Watches(conn, opts.streamWindow ?? MAX_WINDOW, opts.starved ?? []);
    const settings = new Uint8Array(6);
    new DataView(settings.buffer).setUint16(0, 0x4); // INITIAL_WINDOW_SIZE
    new DataView(settings.buffer).setUint32(2, w.#streamWindow);
    await w.#write(new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
    await w.#write(encodeFrame(0x4, 0, 0, settings));
    await w.#write(encodeFrame(0x8, 0, 0, u32(MAX_WINDOW - 65_535)));
    return w;
  }

  /** Opens a watch stream on stream `id` (odd) and waits for its status. */
  async watch(s: TestServer, id: number, query: string): Promise<void> {
    this.streams.set(id, { status: 0, rvs: [], ended: false, text: "" });
    await this.#write(encodeFrame(
      0x1,
      0x5,
      id,
      encodeHeaders([
        ":method",
        "GET",
        ":scheme",
        "https",
        ":path",
        `${CM}?${query}`,
        ":authority",
        "localhost",
        "authorization",
        `Bearer ${s.server.adminToken}`,
      ]),
    ));
    const deadline = Date.now() + 30_000;
    while (this.streams.get(id)!.status === 0) {
      if (Date.now() > deadline || this.#closed) throw new Error(`no status on stream ${id}`);
      await this.read(64 * 1024, 1000);
    }
    assert.equal(this.streams.get(id)!.status, 200);
  }

  /**
   * Reads up to `budget` bytes, or less when nothing arrives for `idleMs`. Returns the bytes
   * read.
   */
  async read(budget: number, idleMs: number): Promise<number> {
    let got = 0;
    while (got < budget && !this.#closed) {
      this.#read ??= this.#conn.read(
        this.#buf.subarray(0, Math.min(this.#buf.length, budget - got)),
      )
        .catch(() => null);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<"idle">((r) => timer = setTimeout(() => r("idle"), idleMs));
      const n = await Promise.race([this.#read, idle]);
      clearTimeout(timer);
      if (n === "idle") break;
      this.#read = undefined;
      if (n === null) {
        this.#closed = true;
        for (const log of this.streams.values()) log.ended = true;
        break;
      }
      got += n;
      await this.#feed(this.#buf.slice(0, n));
    }
    return got;
  }

  close(): void {
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }

  async #feed(bytes: Uint8Array): Promise<void> {
    const joined = new Uint8Array(this.#pending.length + bytes.length);
    joined.set(this.#pending);
    joined.set(bytes, this.#pending.length);
    let at = 0;
    while (joined.length - at >= 9) {
      const len = (joined[at] << 16) | (joined[at + 1] << 8) | joined[at + 2];
      if (joined.length - at < 9 + len) break;
      const type = joined[at + 3];
      const flags = joined[at + 4];
      const id = new DataView(joined.buffer, at + 5, 4).getUint32(0) & 0x7fffffff;
      await this.#frame(type, flags, id, joined.subarray(at + 9, at + 9 + len));
      at += 9 + len;
    }
    this.#pending = joined.slice(at);
  }

  async #frame(type: number, flags: number, id: number, payload: Uint8Array): Promise<void> {
    const log = this.streams.get(id);
    if (type === 0x1 && log) {
      const fields = this.#hpack.decode(payload);
      log.status = Number(fields[fields.indexOf(":status") + 1]);
    } else if (type === 0x0 && log) {
      log.text += new TextDecoder().decode(payload);
      let nl;
      while ((nl = log.text.indexOf("\n")) >= 0) {
        const line = log.text.slice(0, nl);
        log.text = log.text.slice(nl + 1);
        const ev = JSON.parse(line);
        if (ev.type !== "BOOKMARK") log.rvs.push(Number(ev.object.metadata.resourceVersion));
      }
      if (payload.length > 0 && !this.#starved.has(id) && this.#streamWindow < MAX_WINDOW) {
        await this.#write(encodeFrame(0x8, 0, id, u32(payload.length)));
      }
    } else if (type === 0x3 && log) {
      log.ended = true;
    } else if (type === 0x4 && !(flags & 0x1)) {
      await this.#write(encodeFrame(0x4, 0x1, 0));
    }
    if (log && (type === 0x0 || type === 0x1) && (flags & 0x1)) log.ended = true;
  }

  async #write(bytes: Uint8Array): Promise<void> {
    for (let off = 0; off < bytes.length;) off += await this.#conn.write(bytes.subarray(off));
  }
}

async function currentRv(s: TestServer): Promise<string> {
  const res = await s.fetch(`${CM}?limit=1`);
  return (await res.json()).metadata.resourceVersion;
}

Deno.test("a watch stream whose window the client never opens is ended alone; the others get every event", async () => {
  const s = await startTestServer([], {
    optionsHook: (o) => o.watchTuning = { watcherBufferSize: 16 },
  });
  const c = await RawH2Watches.open(s, { streamWindow: 16 * 1024, starved: [1] });
  try {
    const rv = await currentRv(s);
    const ids = [1, 3, 5, 7, 9];
    for (const id of ids) await c.watch(s, id, `watch=1&resourceVersion=${rv}`);
    const cache = s.server.watchFeed.caches.get("/registry/core/configmaps/")!;
    await eventually("five watchers", () => cache.watchers.size === ids.length);
    const data = { d: "x".repeat(4096) };
    const written: number[] = [];
    for (let i = 0; i < 80; i++) {
      const obj = await write(s, "POST", CM, cm(`slow-window-${i}`, data));
      written.push(Number(obj.metadata.resourceVersion));
      await c.read(1 << 20, 5);
    }
    await eventually("the others got every event", async () => {
      await c.read(1 << 20, 20);
      return ids.slice(1).every((id) => c.streams.get(id)!.rvs.length >= written.length);
    });
    for (const id of ids.slice(1)) assert.deepEqual(c.streams.get(id)!.rvs, written);
    // The starved stream's watcher was ended (its buffer overflowed); its memory is released.
    assert.equal(cache.watchers.size, ids.length - 1);
    assert.ok(c.streams.get(1)!.rvs.length < written.length);
  } finally {
    c.close();
    await s.close();
  }
});

Deno.test("on an HTTP/2 connection too slow for all its watches, the first stream keeps every event and the others are ended", async () => {
  // The client takes about one and a half events' worth of bytes off the socket per change,
  // while its four watches need four: the connection backs up, and the server must pick which
  // streams fall behind rather than let every stream lag alike until all overflow together.
  const s = await startTestServer([], {
    optionsHook: (o) => o.watchTuning = { watcherBufferSize: 32, watcherMaxLagMs: 600_000 },
  });
  const c = await RawH2Watches.open(s);
  try {
    const rv = await currentRv(s);
    const ids = [1, 3, 5, 7];
    for (const id of ids) await c.watch(s, id, `watch=1&resourceVersion=${rv}`);
    const cache = s.server.watchFeed.caches.get("/registry/core/configmaps/")!;
    await eventually("four watchers", () => cache.watchers.size === ids.length);
    const size = 256 * 1024;
    const data = { d: "x".repeat(size) };
    const written: number[] = [];
    for (let i = 0; i < 90; i++) {
      const obj = await write(s, "POST", CM, cm(`slow-conn-${i}`, data));
      written.push(Number(obj.metadata.resourceVersion));
      await c.read(Math.round(size * 1.5), 100);
    }
    // Now the client reads everything.
    await eventually("every stream has its last event or has ended", async () => {
      await c.read(1 << 22, 20);
      return ids.every((id) => {
        const log = c.streams.get(id)!;
        return log.ended || log.rvs[log.rvs.length - 1] === written[written.length - 1];
      });
    }, { timeoutMs: 60_000 });
    const got = ids.map((id) => `stream ${id}: ${c.streams.get(id)!.rvs.length}`).join(", ");
    for (const id of ids) {
      const rvs = c.streams.get(id)!.rvs;
      assert.deepEqual(rvs, written.slice(0, rvs.length), `stream ${id} got a gap or disorder`);
    }
    assert.equal(c.streams.get(1)!.rvs.length, written.length, `stream 1 missed events (${got})`);
    assert.ok(ids.some((id) => c.streams.get(id)!.ended), `no stream was ended (${got})`);
  } finally {
    c.close();
    await s.close();
  }
});
