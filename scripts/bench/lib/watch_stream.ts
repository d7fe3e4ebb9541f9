/**
 * One watch stream of the watch benchmark's client ({@link ./watch_client.ts}): the events it
 * received, by resourceVersion and time of arrival, read over HTTP/1.1 on its own TLS
 * connection, or fed by an HTTP/2 connection ({@link ./h2_watch_connection.ts}).
 *
 * @module
 */
import { ChunkedBody } from "./chunked_body.ts";
import { wallNow } from "./wall_now.ts";
import { writeAll } from "./write_all.ts";

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
export class WatchStream {
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

function indexOfCrlfCrlf(buf: Uint8Array, end: number): number {
  for (let i = 0; i + 3 < end; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}
