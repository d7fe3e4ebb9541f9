/**
 * The extended string functions (cel-go `ext.Strings`) the base library lacks: `charAt`,
 * `replace`, `format`, `reverse`, `strings.quote`, plus an ASCII-only `lowerAscii`/`upperAscii`
 * replacement is not possible (the built-ins cannot be overridden), so those stay as they are.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "../errors.ts";
import { formatDouble, formatValue } from "./format_value.ts";
import { Duration, UnsignedInt } from "./runtime_types.ts";

const sync = { async: false };

class StringsNamespace {}

function codePoints(s: string): string[] {
  return Array.from(s);
}

/** Quotes a string with CEL escapes, as `strings.quote` does. */
export function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case "\\":
        out += "\\\\";
        continue;
      case '"':
        out += '\\"';
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) out += "\ufffd";
    else out += ch;
  }
  return out + '"';
}

function fmtError(msg: string): Error {
  return celError("invalid_argument", msg);
}

/** What kind of number a formatted value is. */
type NumberKind = "int" | "uint" | "double" | "other";

function formatNumberVerb(verb: string, v: unknown, precision: number | undefined): string {
  const kind: NumberKind = typeof v === "bigint"
    ? "int"
    : v instanceof UnsignedInt
    ? "uint"
    : typeof v === "number"
    ? "double"
    : "other";
  switch (verb) {
    case "d":
      return formatDecimal(v, kind);
    case "f":
    case "e":
      return formatFloat(verb, v, kind, precision);
    case "b":
    case "o":
    case "x":
    case "X":
      return formatRadix(verb, v, kind);
  }
  throw fmtError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
}

/** `%d`: integers, and the non-finite doubles by name. */
function formatDecimal(v: unknown, kind: NumberKind): string {
  if (kind === "int" || kind === "uint") {
    return String(v instanceof UnsignedInt ? v.valueOf() : v);
  }
  if (kind === "double" && !Number.isFinite(v as number)) {
    return Number.isNaN(v) ? "NaN" : (v as number) > 0 ? "Infinity" : "-Infinity";
  }
  throw fmtError(
    `error during formatting: decimal clause can only be used on integers, was given ${
      typeName(v)
    }`,
  );
}

/** `%f` (fixed-point) and `%e` (scientific), default precision 6. */
function formatFloat(
  verb: "f" | "e",
  v: unknown,
  kind: NumberKind,
  precision: number | undefined,
): string {
  let n: number;
  if (kind === "double") n = v as number;
  else if (kind === "int" || kind === "uint") {
    n = Number(v instanceof UnsignedInt ? v.valueOf() : v);
  } else if (typeof v === "string") {
    n = Number(
      v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v,
    );
    if (Number.isNaN(n) && v !== "NaN") {
      throw fmtError(
        `error during formatting: fixed-point clause can only be used on doubles, was given ${
          typeName(v)
        }`,
      );
    }
  } else {
    throw fmtError(
      `error during formatting: ${
        verb === "f" ? "fixed-point" : "scientific"
      } clause can only be used on doubles, was given ${typeName(v)}`,
    );
  }
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity";
  const p = precision ?? 6;
  if (verb === "f") return toFixedEven(n, p);
  const [m, e] = n.toExponential(p).split("e");
  const exp = Number(e);
  return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/** `%b`, `%o`, `%x` and `%X`: integers, bools in binary, strings and bytes in hex. */
function formatRadix(verb: "b" | "o" | "x" | "X", v: unknown, kind: NumberKind): string {
  const radix = verb === "b" ? 2 : verb === "o" ? 8 : 16;
  let s: string;
  if (kind === "int" || kind === "uint") {
    const b = v instanceof UnsignedInt ? v.valueOf() : v as bigint;
    s = b < 0n ? "-" + (-b).toString(radix) : b.toString(radix);
  } else if (verb === "b" && typeof v === "boolean") s = v ? "1" : "0";
  else if ((verb === "x" || verb === "X") && typeof v === "string") {
    s = Array.from(new TextEncoder().encode(v), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
  } else if ((verb === "x" || verb === "X") && v instanceof Uint8Array) {
    s = Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("");
  } else {
    const what = verb === "b" ? "binary" : verb === "o" ? "octal" : "hex";
    throw fmtError(
      `error during formatting: only integers${
        verb === "b" ? " and bools" : verb === "o" ? "" : ", byte buffers, and strings"
      } can be formatted as ${what}, was given ${typeName(v)}`,
    );
  }
  return verb === "X" ? s.toUpperCase() : s;
}

/** `toFixed` with round-half-to-even on exactly representable halfway values, as Go does. */
function toFixedEven(n: number, p: number): string {
  const s = n.toFixed(p);
  const scaled = n * 10 ** p;
  if (
    Number.isFinite(scaled) && Math.abs(scaled) < 2 ** 52 &&
    scaled - Math.trunc(scaled) === 0.5 * Math.sign(scaled)
  ) {
    const down = Math.trunc(scaled);
    if (down % 2 === 0) return (down / 10 ** p).toFixed(p);
  }
  return s;
}

function typeName(v: unknown): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (v === null) return "null_type";
  if (v instanceof UnsignedInt) return "uint";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof Date) return "google.protobuf.Timestamp";
  if (v instanceof Duration) return "google.protobuf.Duration";
  if (Array.isArray(v) || v instanceof Set) return "list";
  return "map";
}

function formatStringVerb(v: unknown): string {
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "NaN";
    if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
    return formatDouble(v);
  }
  if (
    v instanceof Map || (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Set) &&
      (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null))
  ) {
    const entries: [unknown, unknown][] = v instanceof Map ? [...v] : Object.entries(v);
    const rendered = entries.map(([k, x]) => [formatNested(k), formatNested(x)] as const);
    rendered.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    return `{${rendered.map(([k, x]) => `${k}: ${x}`).join(", ")}}`;
  }
  if (Array.isArray(v) || v instanceof Set) return `[${[...v].map(formatNested).join(", ")}]`;
  if (v instanceof Date || v instanceof Duration) return formatValue(v);
  if (v && typeof v === "object" && "name" in v && !(v instanceof Uint8Array)) {
    return String((v as { name: unknown }).name);
  }
  return formatValue(v);
}

function formatNested(v: unknown): string {
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return formatStringVerb(v);
}

/** Implements `string.format(list)` with cel-go's clauses `%s %d %f %e %b %o %x %X %%`. */
export function formatString(fmt: string, args: unknown[]): string {
  let out = "";
  let argi = 0;
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    if (ch !== "%") {
      out += ch;
      continue;
    }
    i++;
    if (fmt[i] === "%") {
      out += "%";
      continue;
    }
    let precision: number | undefined;
    if (fmt[i] === ".") {
      let j = i + 1;
      while (j < fmt.length && fmt[j] >= "0" && fmt[j] <= "9") j++;
      precision = Number(fmt.slice(i + 1, j));
      i = j;
    }
    const verb = fmt[i];
    if (verb === undefined) {
      throw fmtError("could not parse formatting clause: unexpected end of string");
    }
    if (argi >= args.length) {
      throw fmtError(`index ${argi} out of range`);
    }
    const v = args[argi++];
    if (verb === "s") out += formatStringVerb(v);
    else out += formatNumberVerb(verb, v, precision);
  }
  return out;
}

/** Registers the extended string functions on `env`. */
export function registerStringsLibrary(env: Environment): void {
  env.registerFunction("string.charAt(int): string", (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) {
      throw celError("index_out_of_range", `index out of range: ${i}`);
    }
    return cps[Number(i)] ?? "";
  }, sync);
  const replace = (s: string, from: string, to: string, n: bigint) => {
    if (n === 0n) return s;
    if (n < 0n) return s.split(from).join(to);
    let out = "", rest = s, count = 0n;
    while (count < n) {
      const at = rest.indexOf(from);
      if (at < 0) break;
      if (from === "") {
        out += to + (rest.length ? Array.from(rest)[0] : "");
        rest = rest.slice(rest.length ? Array.from(rest)[0].length : 0);
        count++;
        if (!rest.length) break;
        continue;
      }
      out += rest.slice(0, at) + to;
      rest = rest.slice(at + from.length);
      count++;
    }
    return out + rest;
  };
  env.registerFunction(
    "string.replace(string, string): string",
    (s: string, a: string, b: string) => replace(s, a, b, -1n),
    sync,
  );
  env.registerFunction("string.replace(string, string, int): string", replace, sync);
  env.registerFunction(
    "string.reverse(): string",
    (s: string) => codePoints(s).reverse().join(""),
    sync,
  );
  env.registerFunction("string.format(list): string", formatString, sync);
  env.registerType("StringsNamespace", StringsNamespace);
  env.registerConstant("strings", "StringsNamespace", new StringsNamespace());
  env.registerFunction(
    "StringsNamespace.quote(string): string",
    (_: unknown, s: string) => quoteString(s),
    sync,
  );
}
