/**
 * ProtoWriter: a growable buffer that writes the Protobuf wire format.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Number of bytes the varint encoding of a non-negative safe integer takes. */
function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/**
 * Writes Protobuf wire data. Nested messages are written in place: {@link ProtoWriter.fork} marks
 * where a message starts and {@link ProtoWriter.join} inserts its length prefix afterwards.
 */
export class ProtoWriter {
  #buf: Uint8Array<ArrayBuffer>;
  #len = 0;

  /** Creates a writer with `capacity` bytes preallocated. */
  constructor(capacity = 256) {
    this.#buf = new Uint8Array(Math.max(16, capacity));
  }

  #ensure(extra: number): void {
    const need = this.#len + extra;
    if (need <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  /** Writes a non-negative safe integer as a varint. */
  #unsigned(v: number): void {
    this.#ensure(10);
    const buf = this.#buf;
    let len = this.#len;
    while (v >= 0x80) {
      buf[len++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    buf[len++] = v;
    this.#len = len;
  }

  /**
   * Writes an integer as a varint. Negative values take ten bytes (two's complement over 64 bits),
   * as Protobuf encodes negative `int32` and `int64` values.
   */
  varint(v: number): this {
    if (v >= 0) {
      this.#unsigned(v);
      return this;
    }
    let big = BigInt.asUintN(64, BigInt(v));
    this.#ensure(10);
    while (big >= 0x80n) {
      this.#buf[this.#len++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    this.#buf[this.#len++] = Number(big);
    return this;
  }

  /** Writes a field key: field number and wire type (0 varint, 2 length-delimited). */
  tag(no: number, wireType: number): this {
    this.#unsigned(no * 8 + wireType);
    return this;
  }

  /** Writes a boolean as a varint. */
  bool(v: boolean): this {
    this.#ensure(1);
    this.#buf[this.#len++] = v ? 1 : 0;
    return this;
  }

  /** Writes length-prefixed bytes. */
  bytes(v: Uint8Array): this {
    this.#unsigned(v.length);
    this.#ensure(v.length);
    this.#buf.set(v, this.#len);
    this.#len += v.length;
    return this;
  }

  /** Writes a length-prefixed UTF-8 string (ASCII is copied directly, without an encoder). */
  string(v: string): this {
    const n = v.length;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (v.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (!ascii) return this.bytes(encoder.encode(v));
    this.#unsigned(n);
    this.#ensure(n);
    const buf = this.#buf;
    let len = this.#len;
    for (let i = 0; i < n; i++) buf[len++] = v.charCodeAt(i);
    this.#len = len;
    return this;
  }

  /** Writes bytes as they are, without a length prefix. */
  raw(v: Uint8Array): this {
    this.#ensure(v.length);
    this.#buf.set(v, this.#len);
    this.#len += v.length;
    return this;
  }

  /** Marks the start of a nested message's body; pass the result to {@link ProtoWriter.join}. */
  fork(): number {
    return this.#len;
  }

  /** Ends the nested message started at `start` by inserting its length prefix before it. */
  join(start: number): this {
    const size = this.#len - start;
    const n = varintSize(size);
    this.#ensure(n);
    this.#buf.copyWithin(start + n, start, this.#len);
    const end = this.#len + n;
    this.#len = start;
    this.#unsigned(size);
    this.#len = end;
    return this;
  }

  /** Number of bytes written so far. */
  get length(): number {
    return this.#len;
  }

  /** Returns a copy of the bytes written. */
  finish(): Uint8Array<ArrayBuffer> {
    return this.#buf.slice(0, this.#len);
  }
}
