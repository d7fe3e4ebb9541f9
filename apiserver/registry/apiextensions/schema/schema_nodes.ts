/**
 * Small readers over a `JSONSchemaProps` node shared by the schema checks and the compiled
 * schema: the single items schema, the additionalProperties schema, and the JSON type name of
 * a value as go-openapi names it in messages.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";

/** The items schema when it is a single schema (structural), else undefined. */
export function itemsOf(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const it = s?.items;
  return it && !Array.isArray(it) && typeof it === "object" ? it : undefined;
}

/** The additionalProperties schema when it is one (not `true`/`false`). */
export function additionalOf(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const ap = s?.additionalProperties;
  return ap && typeof ap === "object" ? ap : undefined;
}

/** Whether `v` is a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The JSON type name go-openapi prints for a value (`string`, `integer`, `object`, ...). */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "boolean";
  return "object";
}

/** Structural deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A canonical JSON text of a value (sorted keys), for set membership of enums and items. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Deep copy of a JSON value. */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}
