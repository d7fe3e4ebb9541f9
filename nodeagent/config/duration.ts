/**
 * Go `time.Duration` strings as KubeletConfiguration uses them (`10s`, `5m0s`, `1h30m`, `300ms`).
 *
 * @module
 */

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go duration string into milliseconds.
 *
 * @throws {SyntaxError} when the text is not a Go duration.
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === "0") return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(s);
  if (!m) throw new SyntaxError(`Cannot parse duration ${JSON.stringify(text)}`);
  let total = 0;
  for (const part of s.replace(/^[+-]/, "").matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNITS[part[2]];
  }
  return m[1] === "-" ? -total : total;
}

/** Formats milliseconds as a Go duration string (`5m0s`, `10s`, `200ms`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1000;
  if (h) return `${sign}${h}h${m}m${s}s`;
  if (m) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
