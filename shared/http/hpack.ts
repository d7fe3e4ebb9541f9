/**
 * HPACK (RFC 7541), the header compression of HTTP/2: a decoder for the header blocks a peer
 * sends, with the dynamic table that lives as long as the connection, and a stateless encoder
 * for the header blocks we send.
 *
 * Header lists are flat arrays `[name, value, name, value, …]` of latin1 strings (one char per
 * octet), as field names and values are octets that need not be UTF-8.
 *
 * @module
 */

import {
  HpackError,
  huffmanDecode,
  huffmanEncodedLength,
  huffmanEncodeInto,
  latin1,
} from "./hpack_huffman.ts";

export { HpackError } from "./hpack_huffman.ts";

/**
 * Thrown by {@link HpackDecoder.decode} for a header list larger than the limit given (a
 * sum of name length + value length + 32 per field, RFC 9113 section 6.5.2). The block was
 * decoded to its end, so the decoder stays usable: the stream can be refused while the
 * connection goes on.
 */
export class HeaderListTooLargeError extends HpackError {
  constructor(readonly size: number, readonly limit: number) {
    super(`header list of ${size} octets exceeds the limit of ${limit}`);
    this.name = "HeaderListTooLargeError";
  }
}

/** RFC 7541 Appendix A: entry `i` is static index `i + 1`. */
const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];
const STATIC_COUNT = STATIC_TABLE.length;

/** Each static name's indexes, ascending. */
const STATIC_BY_NAME = new Map<string, number[]>();
STATIC_TABLE.forEach(([name], i) => {
  const indexes = STATIC_BY_NAME.get(name);
  if (indexes) indexes.push(i + 1);
  else STATIC_BY_NAME.set(name, [i + 1]);
});

/** The size a field counts for in the dynamic table and the header list (RFC 7541 4.1). */
const ENTRY_OVERHEAD = 32;

/** Integers above this are rejected; 5 continuation octets hold them with room to spare. */
const MAX_INTEGER = 0x7fffffff;
const MAX_CONTINUATION_OCTETS = 5;

const EMPTY = new Uint8Array(0);

/**
 * The decoding side of one HTTP/2 connection: decodes the header blocks the peer sends, in
 * order, keeping the dynamic table they build. After an {@link HpackError} other than
 * {@link HeaderListTooLargeError} the table is in an unknown state, so the connection must end
 * (a COMPRESSION_ERROR).
 */
export class HpackDecoder {
  /** Our SETTINGS_HEADER_TABLE_SIZE: the most the peer may set the table's size to. */
  readonly #maxTableSize: number;
  /** The table's size limit, as last set by the peer (initially the setting). */
  #capacity: number;
  /** The table's size: the sum of its entries' sizes. */
  #size = 0;
  /** The entries, oldest first from index #first (the slots before it are evicted). */
  #names: string[] = [];
  #values: string[] = [];
  #first = 0;
  /** The block being decoded and the position in it. */
  #block: Uint8Array = EMPTY;
  #pos = 0;

  /** `maxTableSize` is the SETTINGS_HEADER_TABLE_SIZE we announce (4096 by default). */
  constructor(maxTableSize = 4096) {
    if (!Number.isSafeInteger(maxTableSize) || maxTableSize < 0) {
      throw new RangeError(`invalid HPACK table size ${maxTableSize}`);
    }
    this.#maxTableSize = maxTableSize;
    this.#capacity = maxTableSize;
  }

  /**
   * Decodes one complete header block (the fragments of a HEADERS frame and its CONTINUATION
   * frames, joined) into `[name, value, name, value, …]`, in order. Throws {@link HpackError}
   * for a malformed block, and {@link HeaderListTooLargeError} (after decoding the whole block)
   * when the list's size exceeds `maxHeaderListSize`.
   */
  decode(block: Uint8Array, maxHeaderListSize: number = Infinity): string[] {
    this.#block = block;
    this.#pos = 0;
    try {
      return this.#decodeBlock(maxHeaderListSize);
    } finally {
      this.#block = EMPTY;
    }
  }

  #decodeBlock(maxHeaderListSize: number): string[] {
    const block = this.#block;
    const fields: string[] = [];
    let listSize = 0;
    let atStart = true; // table size updates only come before the first field
    while (this.#pos < block.length) {
      const first = block[this.#pos];
      let name: string;
      let value: string;
      if (first >= 0x80) { // 1xxxxxxx: indexed field (section 6.1)
        const index = this.#integer(7);
        if (index === 0) throw new HpackError("indexed field with index 0");
        name = this.#name(index);
        value = index <= STATIC_COUNT
          ? STATIC_TABLE[index - 1][1]
          : this.#values[this.#values.length - (index - STATIC_COUNT)];
      } else if (first >= 0x40) { // 01xxxxxx: literal with incremental indexing (6.2.1)
        const index = this.#integer(6);
        name = index === 0 ? this.#string() : this.#name(index);
        value = this.#string();
        this.#add(name, value);
      } else if (first >= 0x20) { // 001xxxxx: dynamic table size update (6.3)
        if (!atStart) throw new HpackError("dynamic table size update after a field");
        const size = this.#integer(5);
        if (size > this.#maxTableSize) {
          throw new HpackError(
            `dynamic table size update to ${size} above the limit ${this.#maxTableSize}`,
          );
        }
        this.#capacity = size;
        this.#evictTo(size);
        continue;
      } else { // 0001xxxx never indexed (6.2.3), 0000xxxx without indexing (6.2.2)
        const index = this.#integer(4);
        name = index === 0 ? this.#string() : this.#name(index);
        value = this.#string();
      }
      atStart = false;
      listSize += name.length + value.length + ENTRY_OVERHEAD;
      if (listSize <= maxHeaderListSize) fields.push(name, value);
    }
    if (listSize > maxHeaderListSize) {
      throw new HeaderListTooLargeError(listSize, maxHeaderListSize);
    }
    return fields;
  }

  /** The name at `index` (1 or more) of the static table followed by the dynamic table. */
  #name(index: number): string {
    if (index <= STATIC_COUNT) return STATIC_TABLE[index - 1][0];
    const dynamic = index - STATIC_COUNT; // 1 is the newest entry
    if (dynamic > this.#count) {
      throw new HpackError(
        `index ${index} beyond the tables' ${STATIC_COUNT + this.#count} entries`,
      );
    }
    return this.#names[this.#names.length - dynamic];
  }

  get #count(): number {
    return this.#names.length - this.#first;
  }

  /** Adds an entry, first evicting the oldest ones to make room (section 4.4). */
  #add(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    this.#evictTo(this.#capacity - size);
    if (size > this.#capacity) return; // too large: the table is left empty
    this.#names.push(name);
    this.#values.push(value);
    this.#size += size;
  }

  /** Evicts the oldest entries until the table's size is at most `limit`. */
  #evictTo(limit: number): void {
    while (this.#size > limit && this.#count > 0) {
      const i = this.#first++;
      this.#size -= this.#names[i].length + this.#values[i].length + ENTRY_OVERHEAD;
      this.#names[i] = this.#values[i] = "";
    }
    if (this.#first > 32 && this.#first * 2 > this.#names.length) {
      this.#names.splice(0, this.#first);
      this.#values.splice(0, this.#first);
      this.#first = 0;
    }
  }

  /** Reads an integer whose first octet keeps its low `prefixBits` bits for it (section 5.1). */
  #integer(prefixBits: number): number {
    const block = this.#block;
    const mask = (1 << prefixBits) - 1;
    let value = block[this.#pos++] & mask;
    if (value < mask) return value;
    for (let i = 0, scale = 1;; i++, scale *= 128) {
      if (this.#pos >= block.length) throw new HpackError("header block truncated in an integer");
      if (i === MAX_CONTINUATION_OCTETS) throw new HpackError("integer too long");
      const b = block[this.#pos++];
      value += (b & 0x7f) * scale;
      if (value > MAX_INTEGER) throw new HpackError("integer too large");
      if (b < 0x80) return value;
    }
  }

  /** Reads a string literal, raw or Huffman-coded (section 5.2). */
  #string(): string {
    const block = this.#block;
    if (this.#pos >= block.length) throw new HpackError("header block truncated before a string");
    const huffman = block[this.#pos] >= 0x80;
    const length = this.#integer(7);
    if (length > block.length - this.#pos) {
      throw new HpackError("header block truncated in a string");
    }
    const bytes = block.subarray(this.#pos, this.#pos += length);
    return huffman ? huffmanDecode(bytes) : latin1(bytes);
  }
}

/** Header blocks up to this size are built in a buffer kept between calls. */
let scratch = new Uint8Array(4096);
const MAX_SCRATCH = 64 * 1024;

/**
 * Encodes header list `fields` (`[name, value, …]`, latin1 strings, names in lowercase) into a
 * header block without using the dynamic table: a field equal to a static table entry as its
 * index, any other as a literal without indexing (with the static table's index of its name
 * when there is one). Each string is Huffman-coded when that is shorter. Throws RangeError for
 * chars above 255.
 */
export function encodeHeaders(fields: string[]): Uint8Array {
  if (fields.length % 2 !== 0) throw new RangeError("header list of odd length");
  // At most 2 octets for the representation and name index, 6 + length for each string.
  let most = 0;
  for (let i = 0; i < fields.length; i++) most += fields[i].length + 7;
  let out = scratch;
  if (out.length < most) {
    out = new Uint8Array(most);
    if (most <= MAX_SCRATCH) scratch = out;
  }
  let pos = 0;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    const value = fields[i + 1];
    const indexes = STATIC_BY_NAME.get(name);
    if (indexes === undefined) {
      out[pos++] = 0x00; // literal without indexing, new name
      pos = writeString(out, pos, name);
    } else {
      const match = indexes.find((index) => STATIC_TABLE[index - 1][1] === value);
      if (match !== undefined) {
        pos = writeInteger(out, pos, 0x80, 7, match); // indexed
        continue;
      }
      pos = writeInteger(out, pos, 0x00, 4, indexes[0]); // literal without indexing, indexed name
    }
    pos = writeString(out, pos, value);
  }
  return out.slice(0, pos);
}

/** Writes `value` with the first octet's high bits `flags` and low `prefixBits` bits for it. */
function writeInteger(
  out: Uint8Array,
  pos: number,
  flags: number,
  prefixBits: number,
  value: number,
): number {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) {
    out[pos++] = flags | value;
    return pos;
  }
  out[pos++] = flags | mask;
  let rest = value - mask;
  while (rest >= 0x80) {
    out[pos++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  out[pos++] = rest;
  return pos;
}

/** Writes string literal `s`, Huffman-coded when that is shorter. */
function writeString(out: Uint8Array, pos: number, s: string): number {
  const huffmanLength = huffmanEncodedLength(s);
  if (huffmanLength < s.length) {
    pos = writeInteger(out, pos, 0x80, 7, huffmanLength);
    return huffmanEncodeInto(s, out, pos);
  }
  pos = writeInteger(out, pos, 0x00, 7, s.length);
  for (let i = 0; i < s.length; i++) out[pos++] = s.charCodeAt(i);
  return pos;
}
