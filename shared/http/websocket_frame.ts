/**
 * WebSocket framing (RFC 6455 section 5) for the server side: the handshake's accept key,
 * a parser of client frames (which must be masked) and the encoder of server frames (unmasked).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";

/** Frame opcodes. */
export const OPCODE = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key`. */
export function websocketAccept(key: string): string {
  return createHash("sha1").update(key + GUID).digest("base64");
}

/** One frame as received. */
export interface Frame {
  fin: boolean;
  opcode: number;
  /** The unmasked payload. */
  payload: Uint8Array;
}

/** A frame that breaks the protocol; `code` is the close code to answer with. */
export class FrameError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
    this.name = "FrameError";
  }
}

/**
 * Parses client frames out of the bytes pushed in, in order. Frames with a payload over
 * `maxPayload` bytes, unmasked frames and reserved bits are errors.
 */
export class FrameParser {
  #buf: Buffer = Buffer.alloc(0);
  readonly #maxPayload: number;
  readonly #requireMask: boolean;

  constructor(opts: { maxPayload: number; requireMask?: boolean }) {
    this.#maxPayload = opts.maxPayload;
    this.#requireMask = opts.requireMask ?? true;
  }

  /**
   * Adds bytes; returns the frames now complete.
   *
   * @throws {FrameError} on a frame that breaks the protocol.
   */
  push(chunk: Uint8Array): Frame[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : Buffer.from(chunk);
    const out: Frame[] = [];
    for (;;) {
      const frame = this.#next();
      if (!frame) return out;
      out.push(frame);
    }
  }

  #next(): Frame | undefined {
    const b = this.#buf;
    if (b.length < 2) return undefined;
    const fin = (b[0] & 0x80) !== 0;
    if (b[0] & 0x70) throw new FrameError(1002, "reserved bits set");
    const opcode = b[0] & 0x0f;
    const masked = (b[1] & 0x80) !== 0;
    if (this.#requireMask && !masked) throw new FrameError(1002, "client frame not masked");
    let len = b[1] & 0x7f;
    let pos = 2;
    if (len === 126) {
      if (b.length < 4) return undefined;
      len = b.readUInt16BE(2);
      pos = 4;
    } else if (len === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.#maxPayload)) throw new FrameError(1009, "frame too large");
      len = Number(big);
      pos = 10;
    }
    if (len > this.#maxPayload) throw new FrameError(1009, "frame too large");
    if (opcode >= 0x8 && (len > 125 || !fin)) {
      throw new FrameError(1002, "malformed control frame");
    }
    const maskEnd = pos + (masked ? 4 : 0);
    if (b.length < maskEnd + len) return undefined;
    const payload = Buffer.from(b.subarray(maskEnd, maskEnd + len));
    if (masked) {
      for (let i = 0; i < len; i++) payload[i] ^= b[pos + (i & 3)];
    }
    this.#buf = b.subarray(maskEnd + len);
    return { fin, opcode, payload };
  }
}

/** Encodes one unmasked frame (server to client), or masked with `mask` (client to server). */
export function encodeFrame(opcode: number, payload: Uint8Array, mask?: Uint8Array): Buffer {
  const len = payload.length;
  const ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + ext + (mask ? 4 : 0));
  head[0] = 0x80 | opcode;
  head[1] = (mask ? 0x80 : 0) | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) head.writeUInt16BE(len, 2);
  else if (ext === 8) head.writeBigUInt64BE(BigInt(len), 2);
  if (!mask) return Buffer.concat([head, payload]);
  head.set(mask, 2 + ext);
  const body = Buffer.from(payload);
  for (let i = 0; i < len; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([head, body]);
}
