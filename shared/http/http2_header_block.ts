/**
 * Header blocks of HTTP/2 requests (RFC 9113 section 4.3): a HEADERS frame and the
 * CONTINUATION frames that follow it are assembled into one block, bounded in size, and
 * decoded with the connection's HPACK state.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { HeaderListTooLargeError, HpackDecoder } from "./hpack.ts";
import {
  ConnectionError,
  END_HEADERS,
  END_STREAM,
  Http2Error,
  PADDED,
  PRIORITY_FLAG,
} from "./http2_frame.ts";

/** A header block of stream `id`, complete or waiting for CONTINUATION frames. */
export interface HeaderBlock {
  /** The stream the block opens (or ends, as trailers). */
  id: number;
  /** The block's fragments, in order. */
  parts: Uint8Array[];
  /** The fragments' total size in bytes. */
  size: number;
  /** Whether the HEADERS frame ended the stream. */
  endStream: boolean;
}

/** Assembles and decodes the header blocks of one connection. */
export class HeaderBlockReader {
  #decoder = new HpackDecoder(4096);
  #maxBytes: number;
  #pending: HeaderBlock | undefined;

  /** Blocks and their decoded header lists are limited to `maxBytes`. */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The block waiting for CONTINUATION frames, if any: no other frame may come until it ends. */
  get pending(): HeaderBlock | undefined {
    return this.#pending;
  }

  /** Reads a HEADERS frame; returns its block when it is complete (END_HEADERS). */
  headers(flags: number, id: number, payload: Buffer): HeaderBlock | undefined {
    if (id === 0 || id % 2 === 0) {
      throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "HEADERS on an invalid stream id");
    }
    let p: Uint8Array = payload;
    let pad = 0;
    if (flags & PADDED) {
      if (p.length < 1) throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "short HEADERS");
      pad = p[0];
      p = p.subarray(1);
    }
    if (flags & PRIORITY_FLAG) {
      if (p.length < 5) throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "short HEADERS");
      p = p.subarray(5);
    }
    if (pad > p.length) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "padding too long");
    p = p.subarray(0, p.length - pad);
    const block: HeaderBlock = {
      id,
      parts: [Uint8Array.from(p)],
      size: p.length,
      endStream: (flags & END_STREAM) !== 0,
    };
    this.#checkSize(block);
    if (flags & END_HEADERS) return block;
    this.#pending = block;
    return undefined;
  }

  /** Reads a CONTINUATION frame; returns the block when it is complete (END_HEADERS). */
  continuation(flags: number, id: number, payload: Buffer): HeaderBlock | undefined {
    const block = this.#pending;
    if (!block || block.id !== id) {
      throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "CONTINUATION without HEADERS");
    }
    block.parts.push(Uint8Array.from(payload));
    block.size += payload.length;
    this.#checkSize(block);
    if (!(flags & END_HEADERS)) return undefined;
    this.#pending = undefined;
    return block;
  }

  /**
   * The header list of a complete block (names and values alternating), or undefined when it
   * is larger than allowed. Every block must be decoded, even one that is then refused: HPACK
   * state is per connection.
   */
  decode(block: HeaderBlock): string[] | undefined {
    const bytes = block.parts.length === 1 ? block.parts[0] : Buffer.concat(block.parts);
    try {
      return this.#decoder.decode(bytes, this.#maxBytes);
    } catch (err) {
      if (!(err instanceof HeaderListTooLargeError)) {
        throw new ConnectionError(Http2Error.COMPRESSION_ERROR, "header block cannot be decoded");
      }
      return undefined;
    }
  }

  /** A header block's compressed size is bounded (CONTINUATION floods). */
  #checkSize(block: HeaderBlock): void {
    if (block.size > this.#maxBytes) {
      throw new ConnectionError(Http2Error.ENHANCE_YOUR_CALM, "header block too large");
    }
  }
}
