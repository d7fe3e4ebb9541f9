/**
 * Kubernetes resource quantities (`1Gi`, `500m`, `1e3`) as exact decimals: parsing with
 * Kubernetes' grammar and rounding, arithmetic, comparison and the canonical form Kubernetes
 * writes back (`1000m` → `1`, `1024Ki` → `1Mi`, `0.5` → `500m`).
 *
 * @module
 */

/** The suffix family a quantity was written in; the canonical form keeps it where it can. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** Kubernetes' message for text that is not a quantity at all. */
export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** Kubernetes' message for a quantity whose number cannot be read. */
export const QUANTITY_NUMERIC_MESSAGE = "unable to parse numeric part of quantity";
/** Kubernetes' message for a quantity with an unknown suffix. */
export const QUANTITY_SUFFIX_MESSAGE = "unable to parse quantity's suffix";

/** Text that is not a valid quantity; the message is Kubernetes' own. */
export class QuantityParseError extends SyntaxError {
  /** Creates the error with one of the `QUANTITY_*_MESSAGE` texts. */
  constructor(message: string) {
    super(message);
    this.name = "QuantityParseError";
  }
}

const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const DECIMAL_BY_EXP = new Map(Object.entries(DECIMAL).map(([k, v]) => [v, k]));
const BINARY_BY_POWER = new Map(Object.entries(BINARY).map(([k, v]) => [v, k]));
const SUFFIX_CHARS = "eEinumkKMGTP";
/** Parsing keeps values down to 10^-9 (nano), rounding finer values away from zero. */
const NANO_SCALE = 9;
/** Binary quantities are capped at 2^63-1 when parsed. */
const MAX_BINARY = 2n ** 63n - 1n;
/** Largest decimal exponent accepted (Kubernetes accepts any int32; we keep arithmetic cheap). */
const MAX_EXPONENT = 1000;
const MAX_INT64 = 2n ** 63n - 1n, MIN_INT64 = -(2n ** 63n);

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Splits text into sign, integer digits, fraction digits and suffix, as Kubernetes scans it. */
function scan(s: string): { negative: boolean; int: string; frac: string; suffix: string } {
  let pos = 0;
  let negative = false;
  if (s[0] === "-" || s[0] === "+") {
    negative = s[0] === "-";
    pos++;
  }
  const intStart = pos;
  while (isDigit(s[pos])) pos++;
  const int = s.slice(intStart, pos);
  let frac = "";
  if (s[pos] === ".") {
    const fracStart = ++pos;
    while (isDigit(s[pos])) pos++;
    frac = s.slice(fracStart, pos);
  }
  const suffixStart = pos;
  while (pos < s.length && SUFFIX_CHARS.includes(s[pos])) pos++;
  if (s[pos] === "-" || s[pos] === "+") pos++;
  while (isDigit(s[pos])) pos++;
  if (pos !== s.length) throw new QuantityParseError(QUANTITY_FORMAT_MESSAGE);
  return { negative, int, frac, suffix: s.slice(suffixStart) };
}

/** The base (2 or 10), exponent and format a suffix stands for. */
function interpret(suffix: string): { base: 2 | 10; exp: number; format: QuantityFormat } {
  if (suffix in DECIMAL) return { base: 10, exp: DECIMAL[suffix], format: "DecimalSI" };
  if (suffix in BINARY) return { base: 2, exp: BINARY[suffix] * 10, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const rest = suffix.slice(1);
    if (/^[+-]?\d+$/.test(rest)) {
      const exp = Number(rest);
      if (Math.abs(exp) > MAX_EXPONENT) throw new QuantityParseError(QUANTITY_SUFFIX_MESSAGE);
      return { base: 10, exp, format: "DecimalExponent" };
    }
  }
  throw new QuantityParseError(QUANTITY_SUFFIX_MESSAGE);
}

/** Divides `n` by `10^digits`, rounding away from zero. */
function roundAway(n: bigint, digits: number): bigint {
  const div = 10n ** BigInt(digits);
  const q = n / div;
  if (q * div === n) return q;
  return n > 0n ? q + 1n : q - 1n;
}

/** Removes every factor `f` from `n` (not zero); returns the rest and how many were removed. */
function removeFactors(n: bigint, f: bigint, max = Infinity): [bigint, number] {
  let count = 0;
  while (count < max && n % f === 0n) {
    n /= f;
    count++;
  }
  return [n, count];
}

/** Options of {@link Quantity.parse}. */
export interface QuantityParseOptions {
  /** Cap binary (`Ki`…`Ei`) values at 2^63-1 as Kubernetes' parser does (default true). */
  capBinary?: boolean;
}

/** An exact quantity `n * 10^-scale` with the format it was written in. Immutable. */
export class Quantity {
  /** Creates a quantity from an unscaled integer, a decimal scale and a format. */
  constructor(
    readonly n: bigint,
    readonly scale: number,
    readonly format: QuantityFormat = "DecimalSI",
  ) {}

  /**
   * Parses Kubernetes quantity syntax: values finer than 10^-9 round away from zero, binary
   * values are capped at 2^63-1 (unless `capBinary` is false), and a binary value between -1
   * and 1 becomes decimal. Throws {@link QuantityParseError} for invalid text.
   */
  static parse(s: string, options: QuantityParseOptions = {}): Quantity {
    if (s.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_MESSAGE);
    const { negative, int, frac, suffix } = scan(s);
    const { base, exp, format: written } = interpret(suffix);
    let format = written;
    let n = BigInt((int + frac).replace(/^0+/, "") || "0");
    let scale = frac.length;
    if (base === 10) scale -= exp;
    else n *= 2n ** BigInt(exp);
    if (scale > NANO_SCALE && n !== 0n) {
      n = roundAway(n, scale - NANO_SCALE);
      scale = NANO_SCALE;
    }
    if (format === "BinarySI") {
      // scale is never negative here: binary suffixes do not change it.
      if ((options.capBinary ?? true) && n > MAX_BINARY * 10n ** BigInt(scale)) {
        n = MAX_BINARY;
        scale = 0;
      } else if (n !== 0n && n < 10n ** BigInt(scale)) {
        format = "DecimalSI";
      }
    }
    return normalize(negative ? -n : n, scale, format);
  }

  /** The sign: -1, 0 or 1. */
  sign(): number {
    return this.n < 0n ? -1 : this.n > 0n ? 1 : 0;
  }

  /** Reports whether the value has no fractional part. */
  isInteger(): boolean {
    return this.scale <= 0;
  }

  /** The value as an int64, or undefined when it is fractional or out of range. */
  asInt64(): bigint | undefined {
    if (this.scale > 0) return undefined;
    const v = this.n * 10n ** BigInt(-this.scale);
    return v > MAX_INT64 || v < MIN_INT64 ? undefined : v;
  }

  /** The value as a double, possibly losing precision. */
  asApproximateFloat(): number {
    return Number(this.n) * 10 ** -this.scale;
  }

  /** Compares with another quantity: -1, 0 or 1. */
  compareTo(o: Quantity): number {
    const [a, b] = alignScale(this, o);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Reports numeric equality. */
  equals(o: unknown): boolean {
    return o instanceof Quantity && this.compareTo(o) === 0;
  }

  /** The sum, in this quantity's format (the other's when this one is zero). */
  add(o: Quantity): Quantity {
    const [a, b, s] = alignScale(this, o);
    return normalize(a + b, s, this.n === 0n ? o.format : this.format);
  }

  /** The difference, in this quantity's format (the other's when this one is zero). */
  sub(o: Quantity): Quantity {
    const [a, b, s] = alignScale(this, o);
    return normalize(a - b, s, this.n === 0n ? o.format : this.format);
  }

  /**
   * The canonical form Kubernetes serializes: no fractional digits, the largest suffix (or
   * exponent) that loses no precision, in the written format; binary values between -1024 and
   * 1024, or with a fractional part, are written decimal; decimal values beyond the `E` suffix
   * use an exponent.
   */
  toString(): string {
    if (this.n === 0n) return "0";
    const sign = this.n < 0n ? "-" : "";
    const abs = this.n < 0n ? -this.n : this.n;
    let format = this.format;
    if (format === "BinarySI") {
      const whole = this.scale <= 0 ? abs * 10n ** BigInt(-this.scale) : undefined;
      if (whole === undefined || whole < 1024n) format = "DecimalSI";
      else {
        const [mantissa, power] = removeFactors(whole, 1024n, 6);
        return `${sign}${mantissa}${BINARY_BY_POWER.get(power) ?? ""}`;
      }
    }
    let [mantissa, exp] = removeFactors(abs, 10n);
    exp -= this.scale;
    while (((exp % 3) + 3) % 3 !== 0) {
      mantissa *= 10n;
      exp--;
    }
    const suffix = format === "DecimalSI" ? DECIMAL_BY_EXP.get(exp) : undefined;
    if (suffix !== undefined) return `${sign}${mantissa}${suffix}`;
    return exp === 0 ? `${sign}${mantissa}` : `${sign}${mantissa}e${exp}`;
  }
}

function normalize(n: bigint, scale: number, format: QuantityFormat): Quantity {
  while (scale > 0 && n !== 0n && n % 10n === 0n) {
    n /= 10n;
    scale--;
  }
  if (n === 0n) scale = 0;
  if (scale < 0) {
    n *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return new Quantity(n, scale, format);
}

function alignScale(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const s = Math.max(a.scale, b.scale);
  return [a.n * 10n ** BigInt(s - a.scale), b.n * 10n ** BigInt(s - b.scale), s];
}

/** Parses a quantity as {@link Quantity.parse} does, returning undefined when invalid. */
export function tryParseQuantity(
  s: string,
  options: QuantityParseOptions = {},
): Quantity | undefined {
  try {
    return Quantity.parse(s, options);
  } catch (err) {
    if (err instanceof QuantityParseError) return undefined;
    throw err;
  }
}

/**
 * The canonical form of a quantity written as `s` (what Kubernetes stores for it); throws
 * {@link QuantityParseError} for invalid text.
 */
export function canonicalQuantity(s: string): string {
  return Quantity.parse(s).toString();
}
