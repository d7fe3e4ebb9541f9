/**
 * ProtoReader: reads the Protobuf wire format from a byte array.
 *
 * @module
 */
import { ProtobufError } from "./protobuf_error.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Wire type of varint fields. */
export const WIRE_VARINT = 0;
/** Wire type of 64-bit fixed fields. */
export const WIRE_FIXED64 = 1;
/** Wire type of length-delimited fields (strings, bytes, messages, packed repeated scalars). */
export const WIRE_LEN = 2;
/** Wire type of the deprecated group start. */
export const WIRE_START_GROUP = 3;
/** Wire type of the deprecated group end. */
export const WIRE_END_GROUP = 4;
/** Wire type of 32-bit fixed fields. */
export const WIRE_FIXED32 = 5;

function malformed(what: string): ProtobufError {
  return new ProtobufError("Malformed", `malformed protobuf data: ${what}`);
}

/** Reads Protobuf wire data from `buf[start, end)`; every read past the end throws `Malformed`. */
export class ProtoReader {
  #buf: Uint8Array;
  #pos: number;
  #end: number;

  /** Creates a reader over `buf[start, end)`. */
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.#pos = start;
    this.#end = end;
  }

  /** True when every byte has been read. */
  get done(): boolean {
    return this.#pos >= this.#end;
  }

  /** Reads a varint as a bigint (all 64 bits). */
  #bigVarint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.#pos >= this.#end) throw malformed("truncated varint");
      const b = this.#buf[this.#pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
      shift += 7n;
    }
    throw malformed("varint longer than 10 bytes");
  }

  /**
   * Reads a varint. Values up to 2^49 come back as a number; longer ones as a bigint holding
   * the unsigned 64-bit value.
   */
  #varint(): number | bigint {
    const start = this.#pos;
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      if (this.#pos >= this.#end) throw malformed("truncated varint");
      const b = this.#buf[this.#pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    this.#pos = start;
    return this.#bigVarint();
  }

  /** Reads a field key; returns `[fieldNumber, wireType]`. */
  tag(): [number, number] {
    const v = this.#varint();
    if (typeof v === "bigint" || v > 0xffffffff) throw malformed("field key out of range");
    const no = Math.floor(v / 8);
    if (no === 0) throw malformed("field number 0");
    return [no, v % 8];
  }

  /** Reads an unsigned varint that must fit a safe integer (lengths). */
  uint(): number {
    const v = this.#varint();
    if (typeof v === "bigint") throw malformed("length out of range");
    return v;
  }

  /** Reads an `int32` varint (the low 32 bits, signed). */
  int32(): number {
    const v = this.#varint();
    return typeof v === "bigint" ? Number(BigInt.asIntN(32, v)) : v | 0;
  }

  /** Reads an `int64` varint; values beyond 2^53 lose precision as JSON numbers do. */
  int64(): number {
    const v = this.#varint();
    return typeof v === "bigint" ? Number(BigInt.asIntN(64, v)) : v;
  }

  /** Reads a `bool` varint. */
  bool(): boolean {
    const v = this.#varint();
    return v !== 0 && v !== 0n;
  }

  /** Reads a little-endian IEEE 754 double (wire type 1). */
  double(): number {
    const start = this.#pos;
    this.#advance(8);
    const b = this.#buf;
    return new DataView(b.buffer, b.byteOffset + start, 8).getFloat64(0, true);
  }

  /** Reads length-prefixed bytes (a view into the input, not a copy). */
  bytes(): Uint8Array {
    const len = this.uint();
    const start = this.#pos;
    if (len > this.#end - start) throw malformed("length past the end of the data");
    this.#pos += len;
    return this.#buf.subarray(start, start + len);
  }

  /** Reads a length-prefixed UTF-8 string. */
  string(): string {
    const b = this.bytes();
    if (b.length <= 64) {
      let ascii = true;
      for (let i = 0; i < b.length; i++) {
        if (b[i] > 0x7f) {
          ascii = false;
          break;
        }
      }
      if (ascii) {
        let s = "";
        for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
        return s;
      }
    }
    try {
      return decoder.decode(b);
    } catch {
      throw malformed("string is not valid UTF-8");
    }
  }

  /** Skips the value of a field of wire type `wireType`. */
  skip(wireType: number, depth = 0): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.#varint();
        return;
      case WIRE_FIXED64:
        this.#advance(8);
        return;
      case WIRE_LEN:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.#advance(4);
        return;
      case WIRE_START_GROUP: {
        if (depth > 64) throw malformed("groups nested too deeply");
        for (;;) {
          const [, wt] = this.tag();
          if (wt === WIRE_END_GROUP) return;
          this.skip(wt, depth + 1);
        }
      }
      default:
        throw malformed(`unexpected wire type ${wireType}`);
    }
  }

  #advance(n: number): void {
    if (n > this.#end - this.#pos) throw malformed("truncated fixed-width value");
    this.#pos += n;
  }
}
