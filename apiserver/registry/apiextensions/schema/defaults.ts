/**
 * Defaulting (apiextensions defaulting/algorithm.go and prunenulls.go): a property that is
 * absent, or null where the schema does not allow null, takes its default; list items and map
 * values that are null take the items'/values' default; then nulls that are not allowed and
 * have no default are dropped from objects.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { additionalOf, cloneJson, isObject, itemsOf } from "./schema_nodes.ts";

function nonNullableNull(v: unknown, s: JSONSchemaProps | undefined): boolean {
  return v === null && s !== undefined && s.nullable !== true;
}

/** Applies the defaults of `s` to `x` in place. */
export function applyDefaultsTo(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    x.forEach((v, i) => {
      if (nonNullableNull(v, items) && items?.default != null) {
        x[i] = cloneJson(items.default);
      }
      applyDefaultsTo(v, items);
    });
    return;
  }
  if (!isObject(x)) return;
  const props = s.properties ?? {};
  for (const [k, p] of Object.entries(props)) {
    if (p.default == null) continue; // `default: null` is no default (kube)
    if (!Object.hasOwn(x, k) || x[k] === undefined || nonNullableNull(x[k], p)) {
      x[k] = cloneJson(p.default);
    }
  }
  const ap = additionalOf(s);
  for (const [k, v] of Object.entries(x)) {
    if (Object.hasOwn(props, k)) applyDefaultsTo(v, props[k]);
    else if (ap) {
      if (nonNullableNull(v, ap) && ap.default != null) x[k] = cloneJson(ap.default);
      applyDefaultsTo(v, ap);
    }
  }
}

/** Drops nulls of non-nullable properties and map values without defaults, in place. */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    for (const v of x) pruneNonNullableNulls(v, items);
    return;
  }
  if (!isObject(x)) return;
  const props = s.properties ?? {};
  const ap = additionalOf(s);
  for (const [k, v] of Object.entries(x)) {
    const ps = Object.hasOwn(props, k) ? props[k] : ap;
    if (!ps) continue;
    if (v === null && ps.nullable !== true && ps.default == null) delete x[k];
    else pruneNonNullableNulls(v, ps);
  }
}
