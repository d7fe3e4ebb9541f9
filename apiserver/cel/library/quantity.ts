/**
 * Kubernetes resource quantities (`1Gi`, `500m`, `1e3`) as exact decimals, and the CEL quantity
 * library: `isQuantity`, `quantity`, `isInteger`, `asInteger`, `asApproximateFloat`, `sign`,
 * `add`, `sub`, `isLessThan`, `isGreaterThan`, `compareTo` and `==`.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "../errors.ts";

const sync = { async: false };
const MAX_INT = 9223372036854775807n, MIN_INT = -9223372036854775808n;

/** The suffix family a quantity was written in; the canonical form keeps it. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = {
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

const QUANTITY_RE = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** An exact quantity `n * 10^-scale`. Immutable. */
export class Quantity {
  /** Creates a quantity from an unscaled integer, a decimal scale and a format. */
  constructor(
    readonly n: bigint,
    readonly scale: number,
    readonly format: QuantityFormat = "DecimalSI",
  ) {}

  /** Parses Kubernetes quantity syntax; throws an Error for invalid input. */
  static parse(s: string): Quantity {
    const m = QUANTITY_RE.exec(s);
    if (!m) {
      throw new Error(
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      );
    }
    const [, num, suffix = ""] = m;
    const neg = num.startsWith("-");
    const digits = num.replace(/^[+-]/, "");
    const [ip, fp = ""] = digits.split(".");
    let n = BigInt((ip || "0") + fp);
    if (neg) n = -n;
    let scale = fp.length;
    let format: QuantityFormat = "DecimalSI";
    if (suffix in BINARY) {
      n *= 1024n ** BigInt(BINARY[suffix]);
      format = "BinarySI";
    } else if (suffix in DECIMAL) {
      scale -= DECIMAL[suffix];
    } else {
      const exp = Number(suffix.slice(1));
      if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000) {
        throw new Error("quantity exponent out of range");
      }
      scale -= exp;
      format = "DecimalExponent";
    }
    return normalize(n, scale, format);
  }

  /** The sign: -1, 0 or 1. */
  sign(): number {
    return this.n < 0n ? -1 : this.n > 0n ? 1 : 0;
  }

  /** Reports whether the value has no fractional part. */
  isInteger(): boolean {
    return this.scale <= 0;
  }

  /** The value as an int64; throws when fractional or out of range. */
  asInteger(): bigint {
    if (this.scale > 0) {
      throw celError("invalid_argument", "cannot convert value to integer: fractional quantity");
    }
    const v = this.n * 10n ** BigInt(-this.scale);
    if (v > MAX_INT || v < MIN_INT) {
      throw celError("numeric_overflow", "cannot convert value to integer: integer overflow");
    }
    return v;
  }

  /** The value as a double, possibly losing precision. */
  asApproximateFloat(): number {
    return Number(this.n) * 10 ** -this.scale;
  }

  /** Compares with another quantity: -1, 0 or 1. */
  compareTo(o: Quantity): number {
    const [a, b] = align(this, o);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Reports numeric equality. */
  equals(o: unknown): boolean {
    return o instanceof Quantity && this.compareTo(o) === 0;
  }

  /** The sum. */
  add(o: Quantity): Quantity {
    const [a, b, s] = alignScale(this, o);
    return normalize(a + b, s, this.format);
  }

  /** The difference. */
  sub(o: Quantity): Quantity {
    const [a, b, s] = alignScale(this, o);
    return normalize(a - b, s, this.format);
  }

  /** The canonical string form, as Kubernetes serializes quantities. */
  toString(): string {
    if (this.n === 0n) return "0";
    if (this.format === "BinarySI" && this.scale <= 0) {
      let v = this.n * 10n ** BigInt(-this.scale);
      const neg = v < 0n;
      if (neg) v = -v;
      let p = 0;
      while (p < 6 && v % 1024n === 0n && v >= 1024n) {
        v /= 1024n;
        p++;
      }
      if (p > 0) return `${neg ? "-" : ""}${v}${BINARY_BY_POWER.get(p)}`;
      if (v < 1024n) return `${neg ? "-" : ""}${v}`;
    }
    // Decimal: round up to nano precision, then pick the largest exponent (multiple of 3).
    let n = this.n, scale = this.scale;
    if (scale > 9) {
      const div = 10n ** BigInt(scale - 9);
      const q = n / div;
      n = q * div === n ? q : n > 0n ? q + 1n : q;
      scale = 9;
    }
    // express as mantissa * 10^exp with exp multiple of 3
    let exp = -scale;
    while (((exp % 3) + 3) % 3 !== 0) {
      n *= 10n;
      exp--;
    }
    while (n % 1000n === 0n && exp < 18 && n !== 0n) {
      n /= 1000n;
      exp += 3;
    }
    if (this.format === "DecimalExponent") return exp === 0 ? `${n}` : `${n}e${exp}`;
    const suffix = DECIMAL_BY_EXP.get(exp);
    if (suffix === undefined) return `${n}e${exp}`;
    return `${n}${suffix}`;
  }
}

function normalize(n: bigint, scale: number, format: QuantityFormat): Quantity {
  while (scale > 0 && n % 10n === 0n && n !== 0n) {
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

function align(a: Quantity, b: Quantity): [bigint, bigint] {
  const [x, y] = alignScale(a, b);
  return [x, y];
}

/** Parses a quantity, returning undefined when invalid. */
export function tryParseQuantity(s: string): Quantity | undefined {
  try {
    return Quantity.parse(s);
  } catch {
    return undefined;
  }
}

/** Registers the quantity library on `env`. */
export function registerQuantityLibrary(env: Environment): void {
  const T = "kubernetes.Quantity";
  env.registerType(T, Quantity);
  env.registerOperator(`${T} == ${T}`, (a: Quantity, b: Quantity) => a.equals(b));
  env.registerFunction(
    "isQuantity(string): bool",
    (s: string) => tryParseQuantity(s) !== undefined,
    sync,
  );
  env.registerFunction(`quantity(string): ${T}`, (s: string) => {
    const q = tryParseQuantity(s);
    if (!q) {
      throw celError(
        "invalid_argument",
        `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      );
    }
    return q;
  }, sync);
  env.registerFunction(`${T}.isInteger(): bool`, (q: Quantity) => q.isInteger(), sync);
  env.registerFunction(`${T}.asInteger(): int`, (q: Quantity) => q.asInteger(), sync);
  env.registerFunction(
    `${T}.asApproximateFloat(): double`,
    (q: Quantity) => q.asApproximateFloat(),
    sync,
  );
  env.registerFunction(`${T}.sign(): int`, (q: Quantity) => BigInt(q.sign()), sync);
  env.registerFunction(`${T}.add(${T}): ${T}`, (a: Quantity, b: Quantity) => a.add(b), sync);
  env.registerFunction(
    `${T}.add(int): ${T}`,
    (a: Quantity, b: bigint) => a.add(new Quantity(b, 0)),
    sync,
  );
  env.registerFunction(`${T}.sub(${T}): ${T}`, (a: Quantity, b: Quantity) => a.sub(b), sync);
  env.registerFunction(
    `${T}.sub(int): ${T}`,
    (a: Quantity, b: bigint) => a.sub(new Quantity(b, 0)),
    sync,
  );
  env.registerFunction(
    `${T}.isLessThan(${T}): bool`,
    (a: Quantity, b: Quantity) => a.compareTo(b) < 0,
    sync,
  );
  env.registerFunction(
    `${T}.isGreaterThan(${T}): bool`,
    (a: Quantity, b: Quantity) => a.compareTo(b) > 0,
    sync,
  );
  env.registerFunction(
    `${T}.compareTo(${T}): int`,
    (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)),
    sync,
  );
}
