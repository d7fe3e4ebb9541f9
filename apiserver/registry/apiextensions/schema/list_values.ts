/**
 * Lists with `x-kubernetes-list-type` `set` and `map` (apiextensions listtype/validation.go):
 * set items are unique, map items are objects with unique keys (a missing key counts as its
 * default). Also correlates a new item with its old one (same key, or same value for sets),
 * for ratcheting and `oldSelf`.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { duplicate, invalid } from "../../../../shared/api/validation/field_errors.ts";
import { additionalOf, canonicalJson, isObject, itemsOf, jsonEqual } from "./schema_nodes.ts";

/** Whether a map's old and new entries correlate by key (kube: unset, granular and atomic do). */
export function mapIsCorrelatable(mapType: string | undefined): boolean {
  return mapType === undefined || mapType === "" || mapType === "granular" || mapType === "atomic";
}

/** The key values of a list-map item (missing keys take their default). */
export function mapKeyOf(s: JSONSchemaProps, item: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = itemsOf(s)?.properties ?? {};
  for (const k of s["x-kubernetes-list-map-keys"] ?? []) {
    const v = isObject(item) && Object.hasOwn(item, k) ? item[k] : props[k]?.default;
    out[k] = v;
  }
  return out;
}

/** Finds the old item of a new one: `(item) => { value }` or undefined. */
export type Correlator = (item: unknown) => { value: unknown } | undefined;

const NONE: Correlator = () => undefined;

/**
 * The correlator of a list's items with `oldList`: `map` lists by their keys, `set` lists by
 * value, other lists not at all. Built once per list (a keyed index, not a search per item).
 */
export function correlator(s: JSONSchemaProps, oldList: unknown[] | undefined): Correlator {
  if (!oldList) return NONE;
  const lt = s["x-kubernetes-list-type"];
  if (lt === "map") {
    const byKey = new Map<string, unknown>();
    for (const o of oldList) {
      const k = canonicalJson(mapKeyOf(s, o));
      if (!byKey.has(k)) byKey.set(k, o);
    }
    return (item) => {
      const k = canonicalJson(mapKeyOf(s, item));
      return byKey.has(k) ? { value: byKey.get(k) } : undefined;
    };
  }
  if (lt === "set") {
    const values = new Set(oldList.map(canonicalJson));
    return (item) => (values.has(canonicalJson(item)) ? { value: item } : undefined);
  }
  return NONE;
}

/** Every set/map uniqueness error in `v` (new duplicates only when `old` is given). */
export function validateListSetsAndMaps(
  v: unknown,
  s: JSONSchemaProps | undefined,
  path: string,
  old?: { value: unknown },
): FieldError[] {
  if (!s || (old && jsonEqual(v, old.value))) return [];
  const errs: FieldError[] = [];
  if (Array.isArray(v)) {
    const lt = s["x-kubernetes-list-type"];
    if (lt === "set") errs.push(...uniqueSet(v, path));
    else if (lt === "map") errs.push(...uniqueMap(s, v, path));
    const items = itemsOf(s);
    const find = correlator(s, old && Array.isArray(old.value) ? old.value : undefined);
    v.forEach((x, i) => {
      const o = find(x);
      errs.push(...validateListSetsAndMaps(x, items, `${path}[${i}]`, o));
    });
  } else if (isObject(v)) {
    const ap = additionalOf(s);
    const oldObj = old && isObject(old.value) ? old.value : undefined;
    for (const [k, x] of Object.entries(v)) {
      const ps = s.properties?.[k] ?? ap;
      const o = oldObj && Object.hasOwn(oldObj, k) ? { value: oldObj[k] } : undefined;
      const p = path === "" ? k : ap && !s.properties?.[k] ? `${path}[${k}]` : `${path}.${k}`;
      errs.push(...validateListSetsAndMaps(x, ps, p, o));
    }
  }
  return errs;
}

function uniqueSet(v: unknown[], path: string): FieldError[] {
  const seen = new Map<string, number>();
  const errs: FieldError[] = [];
  v.forEach((x, i) => {
    const k = canonicalJson(x);
    const n = seen.get(k) ?? 0;
    if (n === 1) errs.push(duplicate(`${path}[${i}]`, x));
    seen.set(k, n + 1);
  });
  return errs;
}

function uniqueMap(s: JSONSchemaProps, v: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  v.forEach((x, i) => {
    if (x !== null && !isObject(x)) {
      errs.push(invalid(`${path}[${i}]`, x, "must be an object for an array of list-type map"));
    }
  });
  if (errs.length) return errs;
  const seen = new Set<string>();
  v.forEach((x, i) => {
    const key = mapKeyOf(s, x);
    const k = canonicalJson(key);
    if (seen.has(k)) errs.push(duplicate(`${path}[${i}]`, key));
    seen.add(k);
  });
  return errs;
}
