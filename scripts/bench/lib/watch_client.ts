/**
 * A watch benchmark client: a subprocess that holds many watch streams on one server and
 * records, for every event, its resourceVersion and when its bytes were read. Run by
 * `scripts/bench/watch.ts` (several of them, so the clients' TLS and parsing are spread over
 * processes instead of one event loop). Talks JSON lines: the first stdin line is a
 * {@link WatchClientConfig}, then {@link WatchClientCommand}s; each gets one reply on stdout.
 *
 * Two protocols (`WatchClientConfig.protocol`):
 * - `h2`, as client-go does: all of the process's watches are streams of one HTTP/2
 *   connection, framed here (with the server's own HPACK module);
 * - `http/1.1`: each watch is a request on its own TLS connection, its chunked body decoded
 *   here.
 *
 * Both are read with `Deno.connectTls` rather than `fetch`: on a 2-core machine the clients
 * share the CPU with the server, and `fetch` cost about 6 µs per event against 3.7 µs for the
 * HTTP/1.1 reader, which left less CPU to the server and doubled the measured latency.
 *
 * Times are `performance.timeOrigin + performance.now()` (ms since the epoch, sub-ms
 * precision), comparable across processes; the `ping` reply lets the parent measure the
 * offset between the two clocks.
 *
 * Usage (by the benchmark): ./scripts/deno run -A scripts/bench/lib/watch_client.ts
 *
 * @module
 */
import { encodeHeaders, HpackDecoder } from "../../../shared/http/hpack.ts";
import { encodeFrame } from "../../../shared/http/http2_frame.ts";
import { jsonLine, readJsonLines } from "./json_lines.ts";

/** Where and how to connect (sent on stdin, never on the command line: it holds secrets). */
export interface WatchClientConfig {
  /** `https://host:port`. */
  url: string;
  caPem: string;
  /** Bearer token (secret). */
  token?: string;
  clientCertPem?: string;
  /** Secret. */
  clientKeyPem?: string;
  /** The collection to watch, e.g. `/api/v1/namespaces/bench/configmaps`. */
  path: string;
  /** `h2` (one connection per client process, one stream per watch) or `http/1.1`. */
  protocol: "h2" | "http/1.1";
}

/** One acknowledged write: its resourceVersion, when it was sent and when its response arrived. */
export type AckedWrite = [revision: number, sentAt: number, ackedAt: number];

/** Commands of the parent. */
export type WatchClientCommand =
  | { op: "ping" }
  | { op: "open"; count: number; resourceVersion: string }
  | { op: "finish"; writes: AckedWrite[]; timeoutMs: number; outFile: string }
  | { op: "exit" };

/** Reply to `finish`. */
export interface FinishReply {
  watchers: number;
  /** Events received (all watchers). */
  received: number;
  /** Watchers that did not receive exactly the acknowledged writes. */
  missing: number;
  /** Watchers that received an event with a resourceVersion not above the previous one. */
  reordered: number;
  /** Watchers whose stream the server ended early. */
  ended: number;
  /** When each of them ended (ms since the epoch). */
  endedAt: number[];
  /** Events that match no acknowledged write. */
  unknown: number;
  /** Watchers whose connection failed, and the first failure. */
  failed: number;
  firstError?: string;
  /** Earliest and latest receipt times (ms since the epoch). */
  firstAt: number;
  lastAt: number;
  /**
   * Values in `outFile`, float64: `latencies` values of receipt − ack, `latencies` values of
   * receipt − send (ms), then per acknowledged write (in the order given) the earliest and
   * then the latest receipt time among this client's watchers (NaN when none received it),
   * then `survivorLatencies` values of receipt − ack of the watchers the server did not end.
   */
  latencies: number;
  survivorLatencies: number;
}

/** The clock shared by the benchmark's processes (ms since the epoch). */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

const RV_MARK = '"resourceVersion":"';

/** A growable pair of float64 columns. */
class Columns {
  rv = new Float64Array(1024);
  at = new Float64Array(1024);
  n = 0;

  push(rv: number, at: number): void {
    if (this.n === this.rv.length) {
      const rv2 = new Float64Array(this.n * 2);
      rv2.set(this.rv);
      this.rv = rv2;
      const at2 = new Float64Array(this.n * 2);
      at2.set(this.at);
      this.at = at2;
    }
    this.rv[this.n] = rv;
    this.at[this.n] = at;
    this.n++;
  }
}

/** One open watch stream: HTTP/1.1 over its own TLS connection, read without fetch. */
class Watch {
  readonly events = new Columns();
  reordered = false;
  ended = false;
  /** When the server ended the stream (ms since the epoch). */
  endedAt = NaN;
  /** Why the stream failed, when it did not end normally or by our abort. */
  error: string | undefined;
  lastRv = 0;
  done: Promise<void> = Promise.resolve();

  /** The server ended the stream. */
  markEnded(): void {
    if (this.ended) return;
    this.ended = true;
    this.endedAt = wallNow();
  }

  #conn: Deno.TlsConn | undefined;
  #stopped = false;

  /**
   * Sends the watch request on `conn` and reads the response: the status line and headers,
   * then the chunked body, recording each non-BOOKMARK event's resourceVersion and the time
   * of the read that completed it. Resolves once the status is known; throws unless it is 200.
   */
  async open(conn: Deno.TlsConn, request: Uint8Array): Promise<void> {
    this.#conn = conn;
    await writeAll(conn, request);
    const buf = new Uint8Array(256 * 1024);
    let have = 0;
    let headerEnd = -1;
    while (headerEnd < 0) {
      const n = await conn.read(buf.subarray(have));
      if (n === null) throw new Error("connection closed before the response headers");
      have += n;
      headerEnd = indexOfCrlfCrlf(buf, have);
      if (headerEnd < 0 && have === buf.length) throw new Error("response headers too large");
    }
    const head = new TextDecoder().decode(buf.subarray(0, headerEnd));
    const status = Number(head.slice(9, 12));
    if (status !== 200) {
      conn.close();
      throw new Error(`watch answered ${status}: ${head.split("\r\n")[0]}`);
    }
    if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      conn.close();
      throw new Error("watch response is not chunked");
    }
    const body = new ChunkedBody((text, at) => this.text(text, at));
    body.feed(buf.subarray(headerEnd + 4, have), wallNow());
    this.done = (async () => {
      try {
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) break;
          body.feed(buf.subarray(0, n), wallNow());
          if (body.finished) break;
        }
        if (!this.#stopped) this.markEnded();
      } catch (err) {
        // The connection failed: the events it did not deliver count as missing.
        if (!this.#stopped) this.error = String(err);
      }
    })();
  }

  /** Stops reading and closes the connection (an HTTP/2 watch's connection is closed by its owner). */
  async stop(): Promise<void> {
    this.#stopped = true;
    try {
      this.#conn?.close();
    } catch {
      // already closed
    }
    await this.done;
  }

  /** Whether {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  #buffered = "";

  /** Body text of the stream, read at `at`. */
  text(text: string, at: number): void {
    let buffered = this.#buffered + text;
    let start = 0;
    let nl;
    while ((nl = buffered.indexOf("\n", start)) >= 0) {
      this.#line(buffered, start, nl, at);
      start = nl + 1;
    }
    buffered = start === 0 ? buffered : buffered.slice(start);
    this.#buffered = buffered;
  }

  #line(text: string, start: number, end: number, at: number): void {
    if (end - start < 2) return;
    // `{"type":"BOOKMARK",...`: bookmarks carry no write.
    if (text.startsWith('{"type":"BOOKMARK"', start)) return;
    const i = text.indexOf(RV_MARK, start);
    if (i < 0 || i > end) {
      this.reordered = true; // an event without a resourceVersion: count it as broken order
      return;
    }
    const from = i + RV_MARK.length;
    const rv = Number(text.slice(from, text.indexOf('"', from)));
    if (!(rv > this.lastRv)) this.reordered = true;
    this.lastRv = rv;
    this.events.push(rv, at);
  }
}

/** Decodes an HTTP/1.1 chunked body fed in pieces, passing each piece of data on as text. */
class ChunkedBody {
  /** The last (empty) chunk was read. */
  finished = false;
  #decoder = new TextDecoder();
  /** Bytes of the current chunk still to come; -1 while reading a size line. */
  #remaining = -1;
  /** The size line read so far. */
  #sizeLine = "";
  /** CRLF bytes after a chunk's data still to skip. */
  #skip = 0;

  constructor(readonly onText: (text: string, at: number) => void) {}

  feed(bytes: Uint8Array, at: number): void {
    let i = 0;
    let text = "";
    while (i < bytes.length && !this.finished) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, bytes.length - i);
        this.#skip -= n;
        i += n;
      } else if (this.#remaining < 0) {
        const lf = bytes.indexOf(10, i);
        const end = lf < 0 ? bytes.length : lf;
        this.#sizeLine += String.fromCharCode(...bytes.subarray(i, end));
        i = lf < 0 ? bytes.length : lf + 1;
        if (lf >= 0) {
          const size = parseInt(this.#sizeLine.trim().split(";")[0], 16);
          this.#sizeLine = "";
          if (!Number.isFinite(size) || size < 0) throw new Error("malformed chunk size");
          if (size === 0) this.finished = true;
          else this.#remaining = size;
        }
      } else {
        const n = Math.min(this.#remaining, bytes.length - i);
        text += this.#decoder.decode(bytes.subarray(i, i + n), { stream: true });
        this.#remaining -= n;
        i += n;
        if (this.#remaining === 0) {
          this.#remaining = -1;
          this.#skip = 2;
        }
      }
    }
    if (text) this.onText(text, at);
  }
}

const H2_PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** Our receive windows: as large as HTTP/2 allows, so that the server never waits for us. */
const H2_WINDOW = 2 ** 31 - 1;

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/**
 * One HTTP/2 connection carrying watch streams, as client-go's transport multiplexes them:
 * frames are read here and each DATA frame's text goes to its stream's {@link Watch}.
 */
class H2Connection {
  #conn: Deno.TlsConn;
  #decoder = new HpackDecoder();
  #nextId = 1;
  #streams = new Map<number, { watch: Watch; status: (status: number) => void }>();
  #decoders = new Map<number, TextDecoder>();
  #consumed = 0;
  #closed = false;
  #header: { id: number; parts: Uint8Array[] } | undefined;
  done: Promise<void>;

  constructor(conn: Deno.TlsConn) {
    this.#conn = conn;
    const settings = new Uint8Array(12);
    const v = new DataView(settings.buffer);
    v.setUint16(0, 0x4); // INITIAL_WINDOW_SIZE
    v.setUint32(2, H2_WINDOW);
    v.setUint16(6, 0x2); // ENABLE_PUSH
    v.setUint32(8, 0);
    const start = new Uint8Array([
      ...H2_PREFACE,
      ...encodeFrame(0x4, 0, 0, settings),
      ...encodeFrame(0x8, 0, 0, u32(H2_WINDOW - 65_535)),
    ]);
    this.done = writeAll(conn, start).then(() => this.#read());
  }

  /** Opens a watch stream; resolves once its response status is known (throws unless 200). */
  async open(watch: Watch, fields: string[]): Promise<void> {
    const id = this.#nextId;
    this.#nextId += 2;
    const status = new Promise<number>((resolve) => {
      this.#streams.set(id, { watch, status: resolve });
    });
    this.#decoders.set(id, new TextDecoder());
    await writeAll(this.#conn, encodeFrame(0x1, 0x5, id, encodeHeaders(fields)));
    const code = await status;
    if (code !== 200) throw new Error(`watch answered ${code}`);
  }

  close(): void {
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }

  async #read(): Promise<void> {
    const buf = new Uint8Array(1024 * 1024);
    let have = 0;
    try {
      for (;;) {
        if (have === buf.length) throw new Error("frame larger than the read buffer");
        const n = await this.#conn.read(buf.subarray(have));
        if (n === null) break;
        have += n;
        const at = wallNow();
        let pos = 0;
        while (have - pos >= 9) {
          const len = (buf[pos] << 16) | (buf[pos + 1] << 8) | buf[pos + 2];
          if (have - pos < 9 + len) break;
          const type = buf[pos + 3];
          const flags = buf[pos + 4];
          const id = ((buf[pos + 5] & 0x7f) << 24) | (buf[pos + 6] << 16) | (buf[pos + 7] << 8) |
            buf[pos + 8];
          this.#frame(type, flags, id, buf.subarray(pos + 9, pos + 9 + len), at);
          pos += 9 + len;
        }
        buf.copyWithin(0, pos, have);
        have -= pos;
        if (this.#consumed > H2_WINDOW / 2) {
          await writeAll(this.#conn, encodeFrame(0x8, 0, 0, u32(this.#consumed)));
          this.#consumed = 0;
        }
      }
      this.#fail("the server closed the connection");
    } catch (err) {
      this.#fail(this.#closed ? "" : String(err));
    }
  }

  #frame(type: number, flags: number, id: number, payload: Uint8Array, at: number): void {
    switch (type) {
      case 0x0: { // DATA
        this.#consumed += payload.length;
        const s = this.#streams.get(id);
        if (!s) return;
        let data = payload;
        if (flags & 0x8) data = data.subarray(1, data.length - data[0]);
        const text = this.#decoders.get(id)!.decode(data, { stream: true });
        if (text) s.watch.text(text, at);
        if (flags & 0x1) this.#end(id, "");
        return;
      }
      case 0x1: // HEADERS
      case 0x9: { // CONTINUATION
        let p = payload;
        if (type === 0x1) {
          if (flags & 0x8) p = p.subarray(1, p.length - p[0]);
          if (flags & 0x20) p = p.subarray(5);
          this.#header = { id, parts: [] };
        }
        this.#header!.parts.push(p.slice());
        if (!(flags & 0x4)) return;
        const parts = this.#header!.parts;
        this.#header = undefined;
        const block = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
        let off = 0;
        for (const x of parts) {
          block.set(x, off);
          off += x.length;
        }
        const fields = this.#decoder.decode(block);
        const status = fields.indexOf(":status");
        if (status >= 0) this.#streams.get(id)?.status(Number(fields[status + 1]));
        if (flags & 0x1) this.#end(id, "");
        return;
      }
      case 0x3: // RST_STREAM
        this.#streams.get(id)?.status(0);
        this.#end(
          id,
          `stream reset with error ${
            new DataView(payload.buffer, payload.byteOffset).getUint32(0)
          }`,
        );
        return;
      case 0x4: // SETTINGS
        if (!(flags & 0x1)) {
          writeAll(this.#conn, encodeFrame(0x4, 0x1, 0, new Uint8Array())).catch(() => {});
        }
        return;
      case 0x6: // PING
        if (!(flags & 0x1)) {
          writeAll(this.#conn, encodeFrame(0x6, 0x1, 0, payload.slice())).catch(() => {});
        }
        return;
      case 0x7: // GOAWAY
        this.#fail(
          `GOAWAY with error ${new DataView(payload.buffer, payload.byteOffset).getUint32(4)}`,
        );
        return;
    }
  }

  /** The stream ended: normally (`error` empty) or not. */
  #end(id: number, error: string): void {
    const s = this.#streams.get(id);
    if (!s) return;
    this.#streams.delete(id);
    if (s.watch.stopped) return;
    if (error) s.watch.error ??= error;
    else s.watch.markEnded();
  }

  #fail(error: string): void {
    for (const id of [...this.#streams.keys()]) {
      this.#streams.get(id)?.status(0);
      this.#end(id, error || "connection closed");
    }
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function indexOfCrlfCrlf(buf: Uint8Array, end: number): number {
  for (let i = 0; i + 3 < end; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

async function main(): Promise<void> {
  const input = readJsonLines(Deno.stdin.readable);
  const out = Deno.stdout.writable.getWriter();
  const reply = (value: unknown) => out.write(jsonLine(value));
  const first = await input.next();
  if (first.done) return;
  const cfg = first.value as WatchClientConfig;
  const url = new URL(cfg.url);
  const port = Number(url.port || 443);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const auth = cfg.token ? `Authorization: Bearer ${cfg.token}\r\n` : "";
  let watches: Watch[] = [];
  let h2: H2Connection | undefined;

  let connecting: Promise<H2Connection> | undefined;
  const connectH2 = async (): Promise<H2Connection> => {
    const conn = await Deno.connectTls({
      hostname,
      port,
      caCerts: [cfg.caPem],
      alpnProtocols: ["h2"],
      ...(cfg.clientCertPem && cfg.clientKeyPem
        ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem }
        : {}),
    });
    if ((await conn.handshake()).alpnProtocol !== "h2") {
      throw new Error("the server does not speak h2");
    }
    return h2 = new H2Connection(conn);
  };

  const openH2 = async (rv: string): Promise<Watch> => {
    // One connection for all of this process's watches, as client-go shares its transport.
    const h2 = await (connecting ??= connectH2());
    const w = new Watch();
    await h2.open(w, [
      ":method",
      "GET",
      ":scheme",
      "https",
      ":path",
      `${cfg.path}?watch=1&resourceVersion=${rv}`,
      ":authority",
      url.host,
      "accept",
      "application/json",
      "user-agent",
      "watch-bench",
      ...(cfg.token ? ["authorization", `Bearer ${cfg.token}`] : []),
    ]);
    return w;
  };

  const open = async (rv: string): Promise<Watch> => {
    if (cfg.protocol === "h2") return await openH2(rv);
    const w = new Watch();
    const conn = await Deno.connectTls({
      hostname,
      port,
      caCerts: [cfg.caPem],
      ...(cfg.clientCertPem && cfg.clientKeyPem
        ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem }
        : {}),
    });
    const request = new TextEncoder().encode(
      `GET ${cfg.path}?watch=1&resourceVersion=${rv} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Accept: application/json\r\nUser-Agent: watch-bench\r\n${auth}\r\n`,
    );
    await w.open(conn, request);
    return w;
  };

  for await (const raw of input) {
    const cmd = raw as WatchClientCommand;
    try {
      if (cmd.op === "ping") {
        await reply({ now: wallNow() });
      } else if (cmd.op === "open") {
        for (let i = 0; i < cmd.count; i += 50) {
          const n = Math.min(50, cmd.count - i);
          watches.push(
            ...await Promise.all(Array.from({ length: n }, () => open(cmd.resourceVersion))),
          );
        }
        await reply({ opened: watches.length });
      } else if (cmd.op === "finish") {
        const result = await finish(watches, cmd.writes, cmd.timeoutMs, cmd.outFile);
        h2?.close();
        await h2?.done;
        h2 = undefined;
        connecting = undefined;
        await reply(result);
        watches = [];
      } else if (cmd.op === "exit") {
        break;
      }
    } catch (err) {
      await reply({ error: err instanceof Error ? err.message : String(err) });
    }
  }
  await Promise.all(watches.map((w) => w.stop()));
  h2?.close();
  await out.close();
}

/** Waits for the last write to reach every watcher, then checks and measures. */
async function finish(
  watches: Watch[],
  writes: AckedWrite[],
  timeoutMs: number,
  outFile: string,
): Promise<FinishReply> {
  const byRv = new Map<number, number>();
  writes.forEach(([rv], i) => byRv.set(rv, i));
  const lastRv = writes.reduce((m, [rv]) => Math.max(m, rv), 0);
  const deadline = performance.now() + timeoutMs;
  while (
    performance.now() < deadline &&
    watches.some((w) => !w.ended && w.error === undefined && w.lastRv < lastRv)
  ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await Promise.all(watches.map((w) => w.stop()));

  let received = 0;
  for (const w of watches) received += w.events.n;
  const lat = new Float64Array(received * 2);
  const survivors: number[] = [];
  const endedAt: number[] = [];
  let k = 0;
  let missing = 0;
  let reordered = 0;
  let ended = 0;
  let unknown = 0;
  let failed = 0;
  let firstError: string | undefined;
  let firstAt = Infinity;
  let lastAt = -Infinity;
  const earliest = new Float64Array(writes.length).fill(NaN);
  const latest = new Float64Array(writes.length).fill(NaN);
  for (const w of watches) {
    if (w.reordered) reordered++;
    if (w.ended) {
      ended++;
      endedAt.push(w.endedAt);
    }
    if (w.error !== undefined) {
      failed++;
      firstError ??= w.error;
    }
    const seen = new Set<number>();
    const { rv, at, n } = w.events;
    for (let i = 0; i < n; i++) {
      const idx = byRv.get(rv[i]);
      if (idx === undefined) {
        unknown++;
        continue;
      }
      seen.add(rv[i]);
      const [, sentAt, ackedAt] = writes[idx];
      lat[k] = at[i] - ackedAt;
      lat[received + k] = at[i] - sentAt;
      if (!w.ended && w.error === undefined) survivors.push(at[i] - ackedAt);
      k++;
      if (at[i] < firstAt) firstAt = at[i];
      if (at[i] > lastAt) lastAt = at[i];
      if (!(at[i] >= earliest[idx])) earliest[idx] = at[i];
      if (!(at[i] <= latest[idx])) latest[idx] = at[i];
    }
    if (seen.size !== writes.length || n !== writes.length) missing++;
  }
  // Only the matched latencies (k of them) in both halves, then the receipt ranges.
  const kept = new Float64Array(k * 2 + writes.length * 2 + survivors.length);
  kept.set(lat.subarray(0, k), 0);
  kept.set(lat.subarray(received, received + k), k);
  kept.set(earliest, k * 2);
  kept.set(latest, k * 2 + writes.length);
  kept.set(survivors, k * 2 + writes.length * 2);
  await Deno.writeFile(outFile, new Uint8Array(kept.buffer));
  return {
    watchers: watches.length,
    received,
    missing,
    reordered,
    ended,
    endedAt,
    unknown,
    failed,
    firstError,
    firstAt,
    lastAt,
    latencies: k,
    survivorLatencies: survivors.length,
  };
}

if (import.meta.main) await main();
