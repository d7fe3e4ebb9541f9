/**
 * The output side of an HTTP/2 connection: frames are encoded into one buffer as they are
 * queued, and written to the socket together (see {@link FrameWriter.write}).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { GOAWAY, RST_STREAM, SETTINGS, WINDOW_UPDATE } from "./http2_frame.ts";

/**
 * Output queued in the socket beyond this makes write() wait for it to drain. Room for a few
 * dozen watch events fanned out to a few hundred streams (around 100 KiB each), since the socket
 * counts a write as queued until its asynchronous completion; no more, because whatever is
 * queued here delays every stream of the connection when the client reads slowly.
 */
const OUTPUT_HIGH_WATER = 2 * 1024 * 1024;

/** Queues the frames of one connection and writes them to its socket. */
export class FrameWriter {
  #socket: Socket;
  #written: () => void;
  /** Frames not yet written, in one buffer (absent while nothing is queued). */
  #out: Buffer | undefined;
  #outBytes = 0;
  /** Size of the last write: the next buffer starts at it, so a busy connection rarely regrows. */
  #lastWrite = 0;
  #closed = false;

  /** Writes to `socket`; `written` is called as each write completes. */
  constructor(socket: Socket, written: () => void) {
    this.#socket = socket;
    this.#written = written;
  }

  /** Whether output queued here and in the socket leaves room for more. */
  writable(): boolean {
    return this.#outBytes + this.#socket.writableLength < OUTPUT_HIGH_WATER;
  }

  /** Queues one frame (nothing once closed). */
  frame(type: number, flags: number, id: number, payload?: Uint8Array): void {
    if (this.#closed) return;
    const length = payload?.length ?? 0;
    const at = this.#outBytes;
    const end = at + 9 + length;
    let buf = this.#out;
    if (!buf || end > buf.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(end, (buf?.length ?? 0) * 2, this.#lastWrite, 16_384),
      );
      if (buf) buf.copy(grown, 0, 0, at);
      buf = this.#out = grown;
    }
    buf[at] = length >>> 16;
    buf[at + 1] = (length >>> 8) & 0xff;
    buf[at + 2] = length & 0xff;
    buf[at + 3] = type;
    buf[at + 4] = flags;
    buf[at + 5] = (id >>> 24) & 0x7f;
    buf[at + 6] = (id >>> 16) & 0xff;
    buf[at + 7] = (id >>> 8) & 0xff;
    buf[at + 8] = id & 0xff;
    if (length > 0) buf.set(payload!, at + 9);
    this.#outBytes = end;
  }

  /** Queues a SETTINGS frame of `settings` (identifier and value pairs). */
  settings(settings: readonly (readonly [number, number])[]): void {
    const payload = Buffer.alloc(settings.length * 6);
    settings.forEach(([id, value], i) => {
      payload.writeUInt16BE(id, i * 6);
      payload.writeUInt32BE(value, i * 6 + 2);
    });
    this.frame(SETTINGS, 0, 0, payload);
  }

  /** Queues RST_STREAM of stream `id` with error `code`. */
  rstStream(id: number, code: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(code, 0);
    this.frame(RST_STREAM, 0, id, payload);
  }

  /** Queues WINDOW_UPDATE of stream `id` (0: the connection) by `increment`. */
  windowUpdate(id: number, increment: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(increment, 0);
    this.frame(WINDOW_UPDATE, 0, id, payload);
  }

  /** Queues GOAWAY with the last stream processed, error `code` and `message` as debug data. */
  goaway(lastStreamId: number, code: number, message: string): void {
    const debug = Buffer.from(message);
    const payload = Buffer.alloc(8 + debug.length);
    payload.writeUInt32BE(lastStreamId, 0);
    payload.writeUInt32BE(code, 4);
    debug.copy(payload, 8);
    this.frame(GOAWAY, 0, 0, payload);
  }

  /** Writes the queued frames in one socket write; returns false when none were queued. */
  write(): boolean {
    const buf = this.#out;
    if (!buf || this.#outBytes === 0 || this.#closed) return false;
    const data = buf.subarray(0, this.#outBytes);
    this.#out = undefined;
    this.#lastWrite = Math.min(this.#outBytes, 1024 * 1024);
    this.#outBytes = 0;
    // Each completed write may leave room (the socket's "drain" waits for it to empty).
    this.#socket.write(data, this.#written);
    return true;
  }

  /** Drops whatever is queued; nothing more is queued or written. */
  close(): void {
    this.#closed = true;
    this.#out = undefined;
    this.#outBytes = 0;
  }
}
