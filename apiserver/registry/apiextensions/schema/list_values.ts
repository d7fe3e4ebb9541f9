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

/** The old item correlated with `item` in `oldList`, if the list type allows it. */
export function correlateItem(
  s: JSONSchemaProps,
  item: unknown,
  oldList: unknown[],
): { value: unknown } | undefined {
  const lt = s["x-kubernetes-list-type"];
  if (lt === "map") {
    const key = canonicalJson(mapKeyOf(s, item));
    const o = oldList.find((x) => canonicalJson(mapKeyOf(s, x)) === key);
    return o === undefined ? undefined : { value: o };
  }
  if (lt === "set") return oldList.some((x) => jsonEqual(x, item)) ? { value: item } : undefined;
  return undefined;
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
    const oldList = old && Array.isArray(old.value) ? old.value : undefined;
    v.forEach((x, i) => {
      const o = oldList ? correlateItem(s, x, oldList) : undefined;
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
