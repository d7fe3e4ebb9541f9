/**
 * Go `time.Duration` text (`300ms`, `-1.5h`, `2h45m`, `1.s`, `0`), the one duration syntax of
 * the project: flags, the node agent's configuration and CEL's `duration` format read it here,
 * with Go's grammar, its int64-nanosecond range and its error messages.
 *
 * @module
 */

/** Nanoseconds per unit, as Go's `time` package lists them (`µs` both as micro sign and mu). */
const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n,
  "\u03bcs": 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const LIMIT = 1n << 63n;
const MAX_INT64 = LIMIT - 1n;

/** Text that is not a Go duration; the message is Go's own (`time: invalid duration "x"`). */
export class DurationParseError extends SyntaxError {
  /** Creates the error with one of Go's `time:` messages. */
  constructor(message: string) {
    super(message);
    this.name = "DurationParseError";
  }
}

/** Quotes like Go's `time` package: `"` and `\` escaped, other non-ASCII bytes as `\xNN`. */
function quote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const b of new TextEncoder().encode(c)) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else out += c === '"' || c === "\\" ? `\\${c}` : c;
  }
  return `${out}"`;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Reads one `[0-9]*(\.[0-9]*)?unit` element at `pos`; its nanoseconds and the next position. */
function element(s: string, pos: number, invalid: () => never): [bigint, number] {
  const start = pos;
  let v = 0n;
  for (; isDigit(s[pos]); pos++) {
    v = v * 10n + BigInt(s.charCodeAt(pos) - 48);
    if (v > LIMIT) invalid();
  }
  const pre = pos > start;
  let f = 0n, scale = 1, post = false;
  if (s[pos] === ".") {
    const fracStart = ++pos;
    let overflow = false;
    for (; isDigit(s[pos]); pos++) {
      if (overflow) continue;
      const y = f * 10n + BigInt(s.charCodeAt(pos) - 48);
      if (y > LIMIT) overflow = true; // Go stops gathering precision here
      else {
        f = y;
        scale *= 10;
      }
    }
    post = pos > fracStart;
  }
  if (!pre && !post) invalid();
  return withUnit(s, pos, v, f, scale, invalid);
}

/** Applies the unit that follows an element's number; Go's "missing/unknown unit" errors. */
function withUnit(
  s: string,
  pos: number,
  v: bigint,
  f: bigint,
  scale: number,
  invalid: () => never,
): [bigint, number] {
  const start = pos;
  while (pos < s.length && s[pos] !== "." && !isDigit(s[pos])) pos++;
  if (pos === start) {
    throw new DurationParseError(`time: missing unit in duration ${quote(s)}`);
  }
  const u = s.slice(start, pos);
  const unit = UNITS[u];
  if (unit === undefined) {
    throw new DurationParseError(`time: unknown unit ${quote(u)} in duration ${quote(s)}`);
  }
  if (v > LIMIT / unit) invalid();
  v *= unit;
  if (f > 0n) {
    // Go adds the fraction through a float64 (nanosecond-exact up to hours).
    v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
    if (v > LIMIT) invalid();
  }
  return [v, pos];
}

/**
 * Parses a Go duration into nanoseconds, as `time.ParseDuration` does: an optional sign, then
 * one or more decimal numbers (with optional fraction: `1.5h`, `1.s`, `.5s`) each with a unit
 * (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`); a lone `0` needs no unit. No spaces are allowed.
 *
 * @throws {DurationParseError} with Go's message for malformed text or a value beyond int64.
 */
export function parseDuration(text: string): bigint {
  const invalid = (): never => {
    throw new DurationParseError(`time: invalid duration ${quote(text)}`);
  };
  let pos = 0;
  const negative = text[0] === "-";
  if (text[0] === "-" || text[0] === "+") pos = 1;
  if (text.slice(pos) === "0") return 0n;
  if (pos === text.length) invalid();
  let total = 0n;
  while (pos < text.length) {
    if (text[pos] !== "." && !isDigit(text[pos])) invalid();
    const [v, next] = element(text, pos, invalid);
    total += v;
    if (total > LIMIT) invalid();
    pos = next;
  }
  if (negative) return -total;
  if (total > MAX_INT64) invalid();
  return total;
}

/**
 * Parses a Go duration into milliseconds (fractional below a millisecond).
 *
 * @throws {DurationParseError} as {@link parseDuration} does.
 */
export function parseDurationMs(text: string): number {
  return Number(parseDuration(text)) / 1e6;
}

/** `v / 10^digits` with the fraction's trailing zeros (and a bare point) left out. */
function decimal(v: bigint, digits: number): string {
  const div = 10n ** BigInt(digits);
  const frac = (v % div).toString().padStart(digits, "0").replace(/0+$/, "");
  return frac ? `${v / div}.${frac}` : `${v / div}`;
}

/**
 * Formats milliseconds (rounded to the nanosecond) as Go's `Duration.String()` does: `1h0m0s`,
 * `5m0s`, `1.5s`, and below a second `200ms`, `1.5µs`, `10ns`; zero is `0s`.
 */
export function formatDuration(ms: number): string {
  const ns = BigInt(Math.round(ms * 1e6));
  if (ns === 0n) return "0s";
  const sign = ns < 0n ? "-" : "";
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${decimal(u, 3)}\u00b5s`;
  if (u < 1_000_000_000n) return `${sign}${decimal(u, 6)}ms`;
  const seconds = `${decimal(u % 60_000_000_000n, 9)}s`;
  const minutes = u / 60_000_000_000n;
  if (minutes === 0n) return `${sign}${seconds}`;
  const hours = minutes / 60n;
  if (hours === 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${hours}h${minutes % 60n}m${seconds}`;
}

/** {@link parseDurationMs}, or undefined when the text is not a Go duration. */
export function tryParseDurationMs(text: string): number | undefined {
  try {
    return parseDurationMs(text);
  } catch (err) {
    if (err instanceof DurationParseError) return undefined;
    throw err;
  }
}
