/**
 * SPDY/3 framing (SPDY Protocol draft 3, section 2.2): control frames (version 3, a type,
 * flags, a 24-bit length) and data frames (a 31-bit stream id, flags, a 24-bit length), and
 * the uncompressed form of header blocks (a 32-bit count, then 32-bit-length-prefixed names
 * and values, several values of one name joined by NUL).
 *
 * @module
 */

/** Control frame types. */
export const SPDY_TYPE = {
  synStream: 1,
  synReply: 2,
  rstStream: 3,
  settings: 4,
  ping: 6,
  goAway: 7,
  headers: 8,
  windowUpdate: 9,
} as const;

/** The FIN flag (on data frames, SYN_STREAM, SYN_REPLY and HEADERS). */
export const FLAG_FIN = 0x01;

/** One parsed frame. */
export type SpdyFrame =
  | { control: true; type: number; flags: number; data: Uint8Array }
  | { control: false; streamId: number; flags: number; data: Uint8Array };

/** Largest frame payload accepted (the 24-bit length allows 16 MiB). */
const MAX_FRAME = 16 * 1024 * 1024;

/**
 * Splits bytes into frames; keeps a trailing incomplete frame for the next push.
 *
 * @throws {Error} for a control frame of another SPDY version.
 */
export class SpdyFrameParser {
  #buf = new Uint8Array(0);

  /** Adds bytes; returns the frames now complete. */
  push(chunk: Uint8Array): SpdyFrame[] {
    const buf = this.#buf.length ? concat(this.#buf, chunk) : chunk;
    const out: SpdyFrame[] = [];
    let pos = 0;
    while (buf.length - pos >= 8) {
      const view = new DataView(buf.buffer, buf.byteOffset + pos, 8);
      const first = view.getUint32(0);
      const flags = buf[pos + 4];
      const length = (buf[pos + 5] << 16) | (buf[pos + 6] << 8) | buf[pos + 7];
      if (length > MAX_FRAME) throw new Error("SPDY frame too large");
      if (buf.length - pos < 8 + length) break;
      const data = buf.slice(pos + 8, pos + 8 + length);
      if (first & 0x80000000) {
        const version = (first >>> 16) & 0x7fff;
        if (version !== 3) throw new Error(`unsupported SPDY version ${version}`);
        out.push({ control: true, type: first & 0xffff, flags, data });
      } else {
        out.push({ control: false, streamId: first & 0x7fffffff, flags, data });
      }
      pos += 8 + length;
    }
    this.#buf = buf.slice(pos);
    return out;
  }
}

/** Encodes a control frame. */
export function controlFrame(type: number, flags: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, (0x8000 | 3) << 16 | type);
  view.setUint32(4, (flags << 24) | data.length);
  out.set(data, 8);
  return out;
}

/** Encodes a data frame. */
export function dataFrame(streamId: number, flags: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, streamId & 0x7fffffff);
  view.setUint32(4, (flags << 24) | data.length);
  out.set(data, 8);
  return out;
}

/** 32-bit big-endian words. */
export function words(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(i * 4, v >>> 0));
  return out;
}

/** Reads the 32-bit big-endian word at `offset`. */
export function wordAt(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.length).getUint32(offset);
}

/** The uncompressed header block of `headers` (names in lower case). */
export function encodeHeaderBlock(headers: [string, string][]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [words(headers.length)];
  for (const [name, value] of headers) {
    const n = enc.encode(name.toLowerCase());
    const v = enc.encode(value);
    parts.push(words(n.length), n, words(v.length), v);
  }
  return parts.reduce(concat, new Uint8Array(0));
}

/**
 * Parses an uncompressed header block.
 *
 * @throws {Error} when it is truncated.
 */
export function decodeHeaderBlock(block: Uint8Array): Map<string, string[]> {
  const dec = new TextDecoder();
  const out = new Map<string, string[]>();
  if (block.length < 4) throw new Error("truncated SPDY header block");
  const count = wordAt(block, 0);
  let pos = 4;
  const take = () => {
    if (pos + 4 > block.length) throw new Error("truncated SPDY header block");
    const len = wordAt(block, pos);
    if (pos + 4 + len > block.length) throw new Error("truncated SPDY header block");
    const s = dec.decode(block.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
    return s;
  };
  for (let i = 0; i < count; i++) {
    const name = take().toLowerCase();
    const values = take().split("\0");
    out.set(name, [...(out.get(name) ?? []), ...values]);
  }
  return out;
}

/** Concatenates two byte arrays. */
export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
