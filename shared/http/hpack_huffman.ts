/**
 * The Huffman code of HPACK (RFC 7541 section 5.2 and Appendix B) for string literals: the
 * code table, a table-driven decoder that checks the padding rules, and an encoder.
 *
 * Strings are latin1 strings throughout: one char per octet, char codes 0 to 255.
 *
 * @module
 */

/** Thrown for a header block that cannot be decoded: a COMPRESSION_ERROR in HTTP/2 terms. */
export class HpackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HpackError";
  }
}

/** The symbol that ends a string (never sent; its leading bits are the padding). */
export const EOS = 256;

/**
 * The code of each symbol 0 to 256 ({@link EOS} last), right-aligned: the code of symbol `s`
 * is the low {@link HUFFMAN_LENGTHS}`[s]` bits of `HUFFMAN_CODES[s]`, sent most significant
 * bit first. RFC 7541 Appendix B.
 */
export const HUFFMAN_CODES: readonly number[] = [
  0x1ff8,
  0x7fffd8,
  0xfffffe2,
  0xfffffe3,
  0xfffffe4,
  0xfffffe5,
  0xfffffe6,
  0xfffffe7,
  0xfffffe8,
  0xffffea,
  0x3ffffffc,
  0xfffffe9,
  0xfffffea,
  0x3ffffffd,
  0xfffffeb,
  0xfffffec,
  0xfffffed,
  0xfffffee,
  0xfffffef,
  0xffffff0,
  0xffffff1,
  0xffffff2,
  0x3ffffffe,
  0xffffff3,
  0xffffff4,
  0xffffff5,
  0xffffff6,
  0xffffff7,
  0xffffff8,
  0xffffff9,
  0xffffffa,
  0xffffffb,
  0x14,
  0x3f8,
  0x3f9,
  0xffa,
  0x1ff9,
  0x15,
  0xf8,
  0x7fa,
  0x3fa,
  0x3fb,
  0xf9,
  0x7fb,
  0xfa,
  0x16,
  0x17,
  0x18,
  0x0,
  0x1,
  0x2,
  0x19,
  0x1a,
  0x1b,
  0x1c,
  0x1d,
  0x1e,
  0x1f,
  0x5c,
  0xfb,
  0x7ffc,
  0x20,
  0xffb,
  0x3fc,
  0x1ffa,
  0x21,
  0x5d,
  0x5e,
  0x5f,
  0x60,
  0x61,
  0x62,
  0x63,
  0x64,
  0x65,
  0x66,
  0x67,
  0x68,
  0x69,
  0x6a,
  0x6b,
  0x6c,
  0x6d,
  0x6e,
  0x6f,
  0x70,
  0x71,
  0x72,
  0xfc,
  0x73,
  0xfd,
  0x1ffb,
  0x7fff0,
  0x1ffc,
  0x3ffc,
  0x22,
  0x7ffd,
  0x3,
  0x23,
  0x4,
  0x24,
  0x5,
  0x25,
  0x26,
  0x27,
  0x6,
  0x74,
  0x75,
  0x28,
  0x29,
  0x2a,
  0x7,
  0x2b,
  0x76,
  0x2c,
  0x8,
  0x9,
  0x2d,
  0x77,
  0x78,
  0x79,
  0x7a,
  0x7b,
  0x7ffe,
  0x7fc,
  0x3ffd,
  0x1ffd,
  0xffffffc,
  0xfffe6,
  0x3fffd2,
  0xfffe7,
  0xfffe8,
  0x3fffd3,
  0x3fffd4,
  0x3fffd5,
  0x7fffd9,
  0x3fffd6,
  0x7fffda,
  0x7fffdb,
  0x7fffdc,
  0x7fffdd,
  0x7fffde,
  0xffffeb,
  0x7fffdf,
  0xffffec,
  0xffffed,
  0x3fffd7,
  0x7fffe0,
  0xffffee,
  0x7fffe1,
  0x7fffe2,
  0x7fffe3,
  0x7fffe4,
  0x1fffdc,
  0x3fffd8,
  0x7fffe5,
  0x3fffd9,
  0x7fffe6,
  0x7fffe7,
  0xffffef,
  0x3fffda,
  0x1fffdd,
  0xfffe9,
  0x3fffdb,
  0x3fffdc,
  0x7fffe8,
  0x7fffe9,
  0x1fffde,
  0x7fffea,
  0x3fffdd,
  0x3fffde,
  0xfffff0,
  0x1fffdf,
  0x3fffdf,
  0x7fffeb,
  0x7fffec,
  0x1fffe0,
  0x1fffe1,
  0x3fffe0,
  0x1fffe2,
  0x7fffed,
  0x3fffe1,
  0x7fffee,
  0x7fffef,
  0xfffea,
  0x3fffe2,
  0x3fffe3,
  0x3fffe4,
  0x7ffff0,
  0x3fffe5,
  0x3fffe6,
  0x7ffff1,
  0x3ffffe0,
  0x3ffffe1,
  0xfffeb,
  0x7fff1,
  0x3fffe7,
  0x7ffff2,
  0x3fffe8,
  0x1ffffec,
  0x3ffffe2,
  0x3ffffe3,
  0x3ffffe4,
  0x7ffffde,
  0x7ffffdf,
  0x3ffffe5,
  0xfffff1,
  0x1ffffed,
  0x7fff2,
  0x1fffe3,
  0x3ffffe6,
  0x7ffffe0,
  0x7ffffe1,
  0x3ffffe7,
  0x7ffffe2,
  0xfffff2,
  0x1fffe4,
  0x1fffe5,
  0x3ffffe8,
  0x3ffffe9,
  0xffffffd,
  0x7ffffe3,
  0x7ffffe4,
  0x7ffffe5,
  0xfffec,
  0xfffff3,
  0xfffed,
  0x1fffe6,
  0x3fffe9,
  0x1fffe7,
  0x1fffe8,
  0x7ffff3,
  0x3fffea,
  0x3fffeb,
  0x1ffffee,
  0x1ffffef,
  0xfffff4,
  0xfffff5,
  0x3ffffea,
  0x7ffff4,
  0x3ffffeb,
  0x7ffffe6,
  0x3ffffec,
  0x3ffffed,
  0x7ffffe7,
  0x7ffffe8,
  0x7ffffe9,
  0x7ffffea,
  0x7ffffeb,
  0xffffffe,
  0x7ffffec,
  0x7ffffed,
  0x7ffffee,
  0x7ffffef,
  0x7fffff0,
  0x3ffffee,
  0x3fffffff,
];

/** The length in bits of each symbol's code in {@link HUFFMAN_CODES}. */
export const HUFFMAN_LENGTHS: readonly number[] = [
  13,
  23,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  24,
  30,
  28,
  28,
  30,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  30,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  28,
  6,
  10,
  10,
  12,
  13,
  6,
  8,
  11,
  10,
  10,
  8,
  11,
  8,
  6,
  6,
  6,
  5,
  5,
  5,
  6,
  6,
  6,
  6,
  6,
  6,
  6,
  7,
  8,
  15,
  6,
  12,
  10,
  13,
  6,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  7,
  8,
  7,
  8,
  13,
  19,
  13,
  14,
  6,
  15,
  5,
  6,
  5,
  6,
  5,
  6,
  6,
  6,
  5,
  7,
  7,
  6,
  6,
  6,
  5,
  6,
  7,
  6,
  5,
  5,
  6,
  7,
  7,
  7,
  7,
  7,
  15,
  11,
  14,
  13,
  28,
  20,
  22,
  20,
  20,
  22,
  22,
  22,
  23,
  22,
  23,
  23,
  23,
  23,
  23,
  24,
  23,
  24,
  24,
  22,
  23,
  24,
  23,
  23,
  23,
  23,
  21,
  22,
  23,
  22,
  23,
  23,
  24,
  22,
  21,
  20,
  22,
  22,
  23,
  23,
  21,
  23,
  22,
  22,
  24,
  21,
  22,
  23,
  23,
  21,
  21,
  22,
  21,
  23,
  22,
  23,
  23,
  20,
  22,
  22,
  22,
  23,
  22,
  22,
  23,
  26,
  26,
  20,
  19,
  22,
  23,
  22,
  25,
  26,
  26,
  26,
  27,
  27,
  26,
  24,
  25,
  19,
  21,
  26,
  27,
  27,
  26,
  27,
  24,
  21,
  21,
  26,
  26,
  28,
  27,
  27,
  27,
  20,
  24,
  20,
  21,
  22,
  21,
  21,
  23,
  22,
  22,
  25,
  25,
  24,
  24,
  26,
  23,
  26,
  27,
  26,
  26,
  27,
  27,
  27,
  27,
  27,
  28,
  27,
  27,
  27,
  27,
  27,
  26,
  30,
];

const CODE = Uint32Array.from(HUFFMAN_CODES);
const LENGTH = Uint8Array.from(HUFFMAN_LENGTHS);

/*
 * The decoder reads four bits at a time. Its states are the 256 inner nodes of the code tree
 * (state 0 is the root): where the bits read since the last complete symbol lead. As every code
 * is at least five bits long, four bits complete at most one symbol.
 *
 * TRANSITIONS[state << 4 | nibble] holds the next state in bits 0 to 7, EMIT when a symbol was
 * completed (the symbol in bits 16 to 23), FAIL when that symbol was EOS.
 */
const EMIT = 0x100;
const FAIL = 0x200;
const TRANSITIONS = new Uint32Array(256 * 16);

/** Per state, whether a string may end there (the bits since the last symbol are padding). */
const PADDING_OK = 0;
const PADDING_TOO_LONG = 1;
const PADDING_NOT_EOS = 2;
const ENDINGS = new Uint8Array(256).fill(PADDING_NOT_EOS);

buildDecoder();

/**
 * Fills {@link TRANSITIONS} and {@link ENDINGS}. Throws if the code table is not a complete
 * prefix code (some code a prefix of another, or lengths short of Kraft equality).
 */
function buildDecoder(): void {
  // children[2 * node + bit]: an inner node (> 0), a leaf (~symbol, < 0), or 0 for none (the
  // root, node 0, is nobody's child). A complete code with 257 leaves has 256 inner nodes.
  const children = new Int32Array(2 * 256);
  let nodes = 1;
  for (let sym = 0; sym <= EOS; sym++) {
    let node = 0;
    for (let i = LENGTH[sym] - 1; i >= 0; i--) {
      const slot = 2 * node + ((CODE[sym] >>> i) & 1);
      const child = children[slot];
      if (child < 0 || (i === 0 && child !== 0)) {
        throw new Error(`HPACK Huffman table: the code of ${sym} is not prefix-free`);
      }
      if (i === 0) children[slot] = ~sym;
      else if (child > 0) node = child;
      else if (nodes === 256) throw new Error("HPACK Huffman table: not a complete code");
      else node = children[slot] = nodes++;
    }
  }
  if (nodes !== 256 || children.includes(0)) {
    throw new Error("HPACK Huffman table: not a complete code");
  }

  // Padding is up to 7 bits of the all-ones prefix of EOS (RFC 7541 section 5.2).
  ENDINGS[0] = PADDING_OK;
  for (let depth = 1, node = 0; depth < HUFFMAN_LENGTHS[EOS]; depth++) {
    node = children[2 * node + 1];
    ENDINGS[node] = depth <= 7 ? PADDING_OK : PADDING_TOO_LONG;
  }

  for (let state = 0; state < 256; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let i = 3; i >= 0; i--) {
        const child = children[2 * node + ((nibble >>> i) & 1)];
        if (child > 0) {
          node = child;
          continue;
        }
        if (entry !== 0) throw new Error("HPACK Huffman table: a code shorter than 5 bits");
        entry = ~child === EOS ? FAIL : EMIT | (~child << 16);
        node = 0;
      }
      TRANSITIONS[(state << 4) | nibble] = entry | node;
    }
  }
}

/** Output buffer of {@link huffmanDecode}, kept between calls up to this size. */
let scratch = new Uint8Array(1024);
const MAX_SCRATCH = 64 * 1024;

/**
 * Decodes a Huffman-coded string literal into a latin1 string. Throws {@link HpackError} when
 * it contains EOS, or its padding is longer than 7 bits or not the leading bits of EOS.
 */
export function huffmanDecode(bytes: Uint8Array): string {
  const most = Math.floor((bytes.length * 8) / 5); // the shortest code has 5 bits
  let out = scratch;
  if (out.length < most) {
    out = new Uint8Array(most);
    if (most <= MAX_SCRATCH) scratch = out;
  }
  let state = 0;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    let t = TRANSITIONS[(state << 4) | (b >>> 4)];
    if ((t & (EMIT | FAIL)) !== 0) {
      if ((t & FAIL) !== 0) throw new HpackError("Huffman-coded string contains EOS");
      out[n++] = t >>> 16;
    }
    t = TRANSITIONS[((t & 0xff) << 4) | (b & 0x0f)];
    if ((t & (EMIT | FAIL)) !== 0) {
      if ((t & FAIL) !== 0) throw new HpackError("Huffman-coded string contains EOS");
      out[n++] = t >>> 16;
    }
    state = t & 0xff;
  }
  switch (ENDINGS[state]) {
    case PADDING_TOO_LONG:
      throw new HpackError("Huffman-coded string has padding longer than 7 bits");
    case PADDING_NOT_EOS:
      throw new HpackError("Huffman-coded string has padding other than the bits of EOS");
  }
  return latin1(out.subarray(0, n));
}

/** The string of `bytes` with one char per octet (latin1; not windows-1252). */
export function latin1(bytes: Uint8Array): string {
  const CHUNK = 4096; // arguments per call
  if (bytes.length <= CHUNK) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  let s = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return s;
}

/** The length in octets of latin1 string `s` Huffman-coded. Throws RangeError for chars > 255. */
export function huffmanEncodedLength(s: string): number {
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) throw notLatin1();
    bits += LENGTH[c];
  }
  return Math.ceil(bits / 8);
}

/** Huffman-codes latin1 string `s`. Throws RangeError for chars > 255. */
export function huffmanEncode(s: string): Uint8Array {
  const out = new Uint8Array(huffmanEncodedLength(s));
  huffmanEncodeInto(s, out, 0);
  return out;
}

/**
 * Huffman-codes latin1 string `s` into `out` from `offset` and returns the offset after it;
 * `out` must have room for {@link huffmanEncodedLength}`(s)` octets. Throws RangeError for
 * chars > 255.
 */
export function huffmanEncodeInto(s: string, out: Uint8Array, offset: number): number {
  let pos = offset;
  let acc = 0; // the low `bits` bits are pending, fewer than 8 between symbols
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) throw notLatin1();
    let code = CODE[c];
    let len = LENGTH[c];
    if (len > 24) { // so that acc stays within 31 bits
      bits += len - 24;
      acc = (acc << (len - 24)) | (code >>> 24);
      while (bits >= 8) {
        bits -= 8;
        out[pos++] = acc >>> bits;
      }
      acc &= (1 << bits) - 1;
      code &= 0xffffff;
      len = 24;
    }
    bits += len;
    acc = (acc << len) | code;
    while (bits >= 8) {
      bits -= 8;
      out[pos++] = acc >>> bits;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out[pos++] = (acc << (8 - bits)) | (0xff >>> bits); // padded with EOS's ones
  return pos;
}

function notLatin1(): RangeError {
  return new RangeError("HPACK strings are latin1: char code above 255");
}
