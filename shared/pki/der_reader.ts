/**
 * A strict DER reader: splits bytes into TLV elements without trusting any length it reads.
 * Used to parse certificates presented by clients, so every malformed input is an error, never
 * a crash or an out-of-bounds read.
 *
 * @module
 */

/** A decoding failure: the bytes are not valid DER. */
export class DerError extends Error {
  constructor(message: string) {
    super(`malformed DER: ${message}`);
    this.name = "DerError";
  }
}

/** One decoded TLV element. */
export interface DerElement {
  /** The identifier octet (class, constructed bit and tag number), e.g. 0x30 for SEQUENCE. */
  tag: number;
  /** Whether the element is constructed (has children). */
  constructed: boolean;
  /** The content octets. */
  content: Uint8Array;
  /** The whole element: identifier, length and content. */
  raw: Uint8Array;
}

/** Reads the element starting at `offset`; returns it with the offset just past it. */
export function readDerAt(bytes: Uint8Array, offset: number): [DerElement, number] {
  if (offset + 2 > bytes.length) throw new DerError("truncated element");
  const tag = bytes[offset];
  if ((tag & 0x1f) === 0x1f) throw new DerError("multi-byte tags are not supported");
  let length = bytes[offset + 1];
  let pos = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0) throw new DerError("indefinite length");
    if (count > 4) throw new DerError("length too large");
    if (pos + count > bytes.length) throw new DerError("truncated length");
    if (bytes[pos] === 0) throw new DerError("non-minimal length");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[pos + i];
    if (length < 0x80) throw new DerError("non-minimal length");
    pos += count;
  }
  if (pos + length > bytes.length) throw new DerError("truncated content");
  const element: DerElement = {
    tag,
    constructed: (tag & 0x20) !== 0,
    content: bytes.subarray(pos, pos + length),
    raw: bytes.subarray(offset, pos + length),
  };
  return [element, pos + length];
}

/** Reads exactly one element filling all of `bytes`. */
export function readDer(bytes: Uint8Array): DerElement {
  const [element, end] = readDerAt(bytes, 0);
  if (end !== bytes.length) throw new DerError("trailing data");
  return element;
}

/** The child elements of a constructed element. */
export function derChildren(element: DerElement): DerElement[] {
  if (!element.constructed) throw new DerError("expected a constructed element");
  const out: DerElement[] = [];
  let offset = 0;
  while (offset < element.content.length) {
    const [child, next] = readDerAt(element.content, offset);
    out.push(child);
    offset = next;
  }
  return out;
}

/** Checks an element's tag, returning it. */
export function expectTag(element: DerElement | undefined, tag: number, what: string): DerElement {
  if (!element) throw new DerError(`missing ${what}`);
  if (element.tag !== tag) {
    throw new DerError(
      `${what}: expected tag 0x${tag.toString(16)}, got 0x${element.tag.toString(16)}`,
    );
  }
  return element;
}

/** Decodes an OBJECT IDENTIFIER's content to its dotted form. */
export function decodeOid(content: Uint8Array): string {
  if (content.length === 0) throw new DerError("empty object identifier");
  const arcs: bigint[] = [];
  let value = 0n;
  for (let i = 0; i < content.length; i++) {
    if (value === 0n && content[i] === 0x80) throw new DerError("non-minimal object identifier");
    value = (value << 7n) | BigInt(content[i] & 0x7f);
    if ((content[i] & 0x80) === 0) {
      arcs.push(value);
      value = 0n;
    } else if (i === content.length - 1) {
      throw new DerError("truncated object identifier");
    }
  }
  const first = arcs[0];
  const head = first < 40n ? [0n, first] : first < 80n ? [1n, first - 40n] : [2n, first - 80n];
  return [...head, ...arcs.slice(1)].join(".");
}

/** Decodes a BOOLEAN's content. */
export function decodeBoolean(content: Uint8Array): boolean {
  if (content.length !== 1) throw new DerError("boolean of wrong length");
  return content[0] !== 0;
}

/** Decodes a (small, non-negative) INTEGER's content to a number. */
export function decodeSmallInteger(content: Uint8Array): number {
  if (content.length === 0 || content.length > 6) throw new DerError("integer out of range");
  if (content[0] & 0x80) throw new DerError("negative integer");
  let v = 0;
  for (const b of content) v = v * 256 + b;
  return v;
}

/** Decodes a BIT STRING's content into its bytes (padding bits cleared) and bit count. */
export function decodeBitString(content: Uint8Array): { bytes: Uint8Array; bitLength: number } {
  if (content.length === 0) throw new DerError("empty bit string");
  const unused = content[0];
  if (unused > 7 || (content.length === 1 && unused !== 0)) throw new DerError("bad bit string");
  return { bytes: content.subarray(1), bitLength: (content.length - 1) * 8 - unused };
}

/** Decodes a UTCTime or GeneralizedTime element to a Date. */
export function decodeTime(element: DerElement): Date {
  const text = new TextDecoder().decode(element.content);
  let m: RegExpMatchArray | null;
  let year: number;
  if (element.tag === 0x17) {
    m = text.match(/^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/);
    if (!m) throw new DerError(`bad UTCTime ${JSON.stringify(text)}`);
    const yy = Number(m[1]);
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
  } else if (element.tag === 0x18) {
    m = text.match(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/);
    if (!m) throw new DerError(`bad GeneralizedTime ${JSON.stringify(text)}`);
    year = Number(m[1]);
  } else {
    throw new DerError("expected a time");
  }
  const [month, day, hour, minute, second] = m.slice(2).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (
    date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 ||
    second > 59
  ) {
    throw new DerError(`invalid date ${JSON.stringify(text)}`);
  }
  return date;
}

/** Decodes a directory string (UTF8String, PrintableString, IA5String, BMPString, ...). */
export function decodeString(element: DerElement): string {
  const c = element.content;
  switch (element.tag) {
    case 0x0c:
      return new TextDecoder("utf-8", { fatal: true }).decode(c);
    case 0x13:
    case 0x16:
    case 0x14:
      return Array.from(c, (b) => String.fromCharCode(b)).join("");
    case 0x1e: {
      if (c.length % 2) throw new DerError("odd BMPString");
      let s = "";
      for (let i = 0; i < c.length; i += 2) s += String.fromCharCode((c[i] << 8) | c[i + 1]);
      return s;
    }
    case 0x1c: {
      if (c.length % 4) throw new DerError("bad UniversalString");
      let s = "";
      for (let i = 0; i < c.length; i += 4) {
        s += String.fromCodePoint(
          ((c[i] << 24) | (c[i + 1] << 16) | (c[i + 2] << 8) | c[i + 3]) >>> 0,
        );
      }
      return s;
    }
    default:
      throw new DerError(`unsupported string type 0x${element.tag.toString(16)}`);
  }
}
