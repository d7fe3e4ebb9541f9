/**
 * The HTTP/2 side of the watch benchmark's client ({@link ./watch_client.ts}): one connection
 * carrying many watch streams, framed here with the server's own HPACK module.
 *
 * @module
 */
import { encodeHeaders, HpackDecoder } from "../../../shared/http/hpack.ts";
import { encodeFrame } from "../../../shared/http/http2_frame.ts";
import { wallNow } from "./wall_now.ts";
import type { WatchStream } from "./watch_stream.ts";
import { writeAll } from "./write_all.ts";

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
 * frames are read here and each DATA frame's text goes to its stream's {@link WatchStream}.
 */
export class H2WatchConnection {
  #conn: Deno.TlsConn;
  #decoder = new HpackDecoder();
  #nextId = 1;
  #streams = new Map<number, { watch: WatchStream; status: (status: number) => void }>();
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
  async open(watch: WatchStream, fields: string[]): Promise<void> {
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
