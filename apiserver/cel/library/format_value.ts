/**
 * Renders CEL values as text the way cel-go's `string()` conversion and `%s` do.
 *
 * @module
 */
import { Duration, Optional, UnsignedInt } from "./runtime_types.ts";

/** Formats a double the way cel-go prints it (`1e+06`, `0.5`, `NaN`, `+Inf`). */
export function formatDouble(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  const abs = Math.abs(v);
  if (abs !== 0 && (abs >= 1e21 || abs < 1e-4)) {
    const [m, e] = v.toExponential().split("e");
    const exp = Number(e);
    return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(v);
}

/** Formats a timestamp as RFC 3339 in UTC with trailing zeros trimmed. */
export function formatTimestamp(d: Date): string {
  return d.toISOString().replace(".000Z", "Z");
}

/** Formats a duration as seconds with up to nine fractional digits (`1.5s`). */
export function formatDuration(d: Duration): string {
  const total = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const neg = total < 0n;
  const abs = neg ? -total : total;
  const s = abs / 1_000_000_000n;
  const ns = abs % 1_000_000_000n;
  const frac = ns === 0n ? "" : "." + String(ns).padStart(9, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${s}${frac}s`;
}

/** Renders any CEL runtime value for `%s` and error messages. */
export function formatValue(v: unknown, quoteStrings = false): string {
  switch (typeof v) {
    case "string":
      return quoteStrings ? JSON.stringify(v) : v;
    case "bigint":
      return String(v);
    case "number":
      return formatDouble(v);
    case "boolean":
      return String(v);
  }
  if (v === null || v === undefined) return "null";
  if (v instanceof UnsignedInt) return String(v.valueOf());
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Date) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  if (v instanceof Optional) {
    return v.hasValue() ? `optional(${formatValue(v.value(), true)})` : "optional.none()";
  }
  if (Array.isArray(v) || v instanceof Set) {
    return `[${[...v].map((x) => formatValue(x, true)).join(", ")}]`;
  }
  if (v instanceof Map) {
    return `{${
      [...v].map(([k, x]) => `${formatValue(k, true)}: ${formatValue(x, true)}`).join(", ")
    }}`;
  }
  if (typeof v === "object") {
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) {
      return `{${
        Object.entries(v as Record<string, unknown>).map(([k, x]) =>
          `${JSON.stringify(k)}: ${formatValue(x, true)}`
        ).join(", ")
      }}`;
    }
    const s = String(v);
    if (s !== "[object Object]") return s;
    if (typeof (v as { name?: unknown }).name === "string") return (v as { name: string }).name;
  }
  return String(v);
}
