/**
 * A small DER (ASN.1 Distinguished Encoding Rules) encoder: the building blocks needed to write
 * X.509 certificates. Every function returns one complete TLV.
 *
 * @module
 */

/** ASN.1 universal tags used by the encoder and the reader. */
export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  TELETEX_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  UNIVERSAL_STRING: 0x1c,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

function encodeLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

/** Encodes one TLV with a single-byte tag (universal, context or application class). */
export function derTlv(tag: number, content: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(tag), encodeLength(content.length), content);
}

/** A SEQUENCE of already encoded elements. */
export function derSequence(...items: Uint8Array[]): Uint8Array {
  return derTlv(Tag.SEQUENCE, concatBytes(...items));
}

/** A SET of already encoded elements, sorted as DER requires for SET OF. */
export function derSet(...items: Uint8Array[]): Uint8Array {
  const sorted = [...items].sort(compareBytes);
  return derTlv(Tag.SET, concatBytes(...sorted));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * An INTEGER. A bigint or number is encoded in two's complement; a byte array is taken as an
 * unsigned big-endian magnitude (as used for serial numbers).
 */
export function derInteger(value: bigint | number | Uint8Array): Uint8Array {
  if (value instanceof Uint8Array) {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    const magnitude = value.length === 0 ? Uint8Array.of(0) : value.subarray(start);
    const content = magnitude[0] & 0x80 ? concatBytes(Uint8Array.of(0), magnitude) : magnitude;
    return derTlv(Tag.INTEGER, content);
  }
  let v = BigInt(value);
  const bytes: number[] = [];
  if (v >= 0n) {
    do {
      bytes.unshift(Number(v & 0xffn));
      v >>= 8n;
    } while (v > 0n);
    if (bytes[0] & 0x80) bytes.unshift(0);
  } else {
    do {
      bytes.unshift(Number(v & 0xffn));
      v >>= 8n;
    } while (v < -1n || (bytes[0] & 0x80) === 0);
  }
  return derTlv(Tag.INTEGER, Uint8Array.from(bytes));
}

/** A BOOLEAN. */
export function derBoolean(value: boolean): Uint8Array {
  return derTlv(Tag.BOOLEAN, Uint8Array.of(value ? 0xff : 0x00));
}

/** NULL. */
export function derNull(): Uint8Array {
  return Uint8Array.of(Tag.NULL, 0);
}

/** An OBJECT IDENTIFIER from its dotted form, e.g. `2.5.4.3`. */
export function derOid(oid: string): Uint8Array {
  const parts = oid.split(".").map((p) => {
    if (!/^\d+$/.test(p)) throw new Error(`invalid object identifier ${JSON.stringify(oid)}`);
    return BigInt(p);
  });
  if (parts.length < 2 || parts[0] > 2n || (parts[0] < 2n && parts[1] > 39n)) {
    throw new Error(`invalid object identifier ${JSON.stringify(oid)}`);
  }
  const arcs = [parts[0] * 40n + parts[1], ...parts.slice(2)];
  const bytes: number[] = [];
  for (const arc of arcs) {
    const group: number[] = [Number(arc & 0x7fn)];
    for (let v = arc >> 7n; v > 0n; v >>= 7n) group.unshift(Number(v & 0x7fn) | 0x80);
    bytes.push(...group);
  }
  return derTlv(Tag.OID, Uint8Array.from(bytes));
}

/** An OCTET STRING. */
export function derOctetString(bytes: Uint8Array): Uint8Array {
  return derTlv(Tag.OCTET_STRING, bytes);
}

/** A BIT STRING holding whole bytes (or with `unusedBits` padding bits in the last byte). */
export function derBitString(bytes: Uint8Array, unusedBits = 0): Uint8Array {
  return derTlv(Tag.BIT_STRING, concatBytes(Uint8Array.of(unusedBits), bytes));
}

/**
 * A named-bit BIT STRING (such as KeyUsage) from the indexes of the set bits, bit 0 being the
 * most significant bit of the first byte; trailing zero bits are dropped as DER requires.
 */
export function derNamedBits(bits: number[]): Uint8Array {
  if (bits.length === 0) return derBitString(new Uint8Array(0));
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)] |= 0x80 >> (b % 8);
  return derBitString(bytes, 7 - (highest % 8));
}

/** A UTF8String. */
export function derUtf8String(value: string): Uint8Array {
  return derTlv(Tag.UTF8_STRING, new TextEncoder().encode(value));
}

/** A PrintableString; throws when the value has characters outside its alphabet. */
export function derPrintableString(value: string): Uint8Array {
  if (!/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value)) {
    throw new Error(`${JSON.stringify(value)} is not a PrintableString`);
  }
  return derTlv(Tag.PRINTABLE_STRING, new TextEncoder().encode(value));
}

/** An IA5String (ASCII), as used for DNS names in subjectAltName. */
export function derIa5String(value: string): Uint8Array {
  // deno-lint-ignore no-control-regex
  if (!/^[\x00-\x7f]*$/.test(value)) throw new Error(`${JSON.stringify(value)} is not ASCII`);
  return derTlv(Tag.IA5_STRING, new TextEncoder().encode(value));
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/**
 * A certificate validity time: UTCTime for the years 1950 to 2049 and GeneralizedTime
 * otherwise, as RFC 5280 section 4.1.2.5 requires. Fractions of a second are dropped.
 */
export function derTime(date: Date): Uint8Array {
  const y = date.getUTCFullYear();
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${
    pad(date.getUTCMinutes())
  }${pad(date.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) {
    return derTlv(Tag.UTC_TIME, new TextEncoder().encode(`${pad(y % 100)}${rest}`));
  }
  return derTlv(Tag.GENERALIZED_TIME, new TextEncoder().encode(`${pad(y, 4)}${rest}`));
}

/** A context-specific EXPLICIT tag `[n]` wrapping one encoded element. */
export function derExplicit(n: number, inner: Uint8Array): Uint8Array {
  return derTlv(0xa0 | n, inner);
}

/**
 * A context-specific IMPLICIT tag `[n]` around raw content: primitive unless `constructed`.
 */
export function derImplicit(n: number, content: Uint8Array, constructed = false): Uint8Array {
  return derTlv((constructed ? 0xa0 : 0x80) | n, content);
}
