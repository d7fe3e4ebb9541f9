/**
 * ProtoWriter: protobufjs's wire-format `Writer` with field keys, and strings written as Go
 * writes them.
 *
 * Nested messages are written in place: `fork()` opens one and `ldelim()` closes it, writing its
 * length prefix.
 *
 * @module
 */
import protobuf from "protobufjs/minimal.js";

/**
 * The Protobuf wire writer. A string with a lone UTF-16 surrogate is written with U+FFFD in its
 * place, as `TextEncoder` does and as Go holds such a string after decoding it from JSON.
 */
export class ProtoWriter extends protobuf.Writer {
  /** Writes a field key: field number and wire type (0 varint, 2 length-delimited). */
  tag(no: number, wireType: number): this {
    this.uint32(no * 8 + wireType);
    return this;
  }

  /** Writes a length-prefixed UTF-8 string. */
  override string(value: string): this {
    super.string(value.isWellFormed() ? value : value.toWellFormed());
    return this;
  }

  /** Returns a copy of the bytes written. */
  override finish(): Uint8Array<ArrayBuffer> {
    return super.finish() as Uint8Array<ArrayBuffer>;
  }
}
