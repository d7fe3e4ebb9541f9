/**
 * JSON values as structured-merge-diff sees them: a total order across types (numbers, then
 * strings, booleans, lists, maps, null), Go-compatible compact JSON, and the printed form used in
 * field paths.
 *
 * @module
 */

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not an array). */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function rank(v: unknown): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (isJsonObject(v)) return 4;
  return 5;
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total order of JSON values (structured-merge-diff's `value.Compare`). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a), rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
    case 1:
      return cmp(a as string | number, b as string | number);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[], lb = b as unknown[];
      for (let i = 0;; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const ka = Object.keys(a as JsonObject).sort(), kb = Object.keys(b as JsonObject).sort();
      for (let i = 0;; i++) {
        if (i >= ka.length && i >= kb.length) return 0;
        if (i >= ka.length) return -1;
        if (i >= kb.length) return 1;
        const c = cmp(ka[i], kb[i]);
        if (c !== 0) return c;
        const d = compareValues((a as JsonObject)[ka[i]], (b as JsonObject)[kb[i]]);
        if (d !== 0) return d;
      }
    }
  }
  return 0;
}

const HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** Compact JSON the way Go's encoder writes it (map keys sorted, HTML characters escaped). */
export function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${goJson(k)}:${goJson(v[k])}`).join(",")}}`;
  }
  if (typeof v === "string") {
    return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => HTML_ESCAPES[c]);
  }
  if (v === undefined) return "null";
  return JSON.stringify(v);
}

/** A value as field paths print it (`"a"`, `1`, `true`, `[1, 2]`, `{a=1}`). */
export function valueToString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(", ")}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${k}=${valueToString(v[k])}`).join(", ")}}`;
  }
  return String(v);
}
