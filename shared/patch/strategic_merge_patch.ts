/**
 * Strategic merge patch (`application/strategic-merge-patch+json`): a merge patch in which
 * lists marked `patchStrategy: merge` are merged (objects by their merge key, scalars as a
 * union) instead of replaced, with the directives Kubernetes clients send: `$patch`
 * (`replace`, `delete`, `merge`), `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`
 * and `$retainKeys`.
 *
 * @module
 */
import { deepEqual } from "../json/deep_equal.ts";
import type { StrategicField, StrategicSchema } from "./strategic_schema.ts";
import { isObject } from "../json/is_object.ts";

/** A patch that cannot be applied (answered 422). */
export class StrategicMergePatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StrategicMergePatchError";
  }
}

type Obj = Record<string, unknown>;

const PATCH = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ORDER = "$setElementOrder/";
const DELETE_PRIMITIVE = "$deleteFromPrimitiveList/";

/** Applies `patch` to `original` (not modified) with the field metadata of `schema`. */
export function applyStrategicMergePatch(
  original: unknown,
  patch: Obj,
  schema: StrategicSchema | undefined,
): Obj {
  const base = isObject(original) ? structuredClone(original) : {};
  return mergeMap(base, patch, schema) ?? {};
}

function mergeMap(orig: Obj, patchIn: Obj, schema: StrategicSchema | undefined): Obj | undefined {
  const patch = { ...patchIn };
  if (PATCH in patch) {
    const directive = patch[PATCH];
    delete patch[PATCH];
    if (directive === "replace") return mergeMap({}, patch, schema) ?? {};
    if (directive === "delete") return undefined;
    if (directive !== "merge") {
      throw new StrategicMergePatchError(`Unknown patch type: ${JSON.stringify(directive)}`);
    }
  }
  if (RETAIN_KEYS in patch) applyRetainKeys(orig, patch);
  const orders = takeListDirectives(orig, patch);
  const live = new Map<string, unknown[]>();
  for (const [k, order] of orders) {
    const key = schema?.field(k)?.mergeKey;
    checkOrderList(patch[k], order, key);
    live.set(k, Array.isArray(orig[k]) ? [...orig[k] as unknown[]] : []);
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$")) {
      throw new StrategicMergePatchError(`Unknown directive ${JSON.stringify(k)}`);
    }
    if (v === null) {
      delete orig[k];
      continue;
    }
    const meta = schema?.field(k);
    const cur = orig[k];
    if (isObject(v)) {
      const merged = mergeMap(isObject(cur) ? cur : {}, v, meta?.schema);
      if (merged === undefined) delete orig[k];
      else orig[k] = merged;
    } else if (Array.isArray(v)) {
      if (meta?.strategies.includes("merge")) {
        orig[k] = mergeList(Array.isArray(cur) ? cur : [], v, meta, k);
      } else orig[k] = replaceList(v);
    } else {
      orig[k] = v;
    }
  }
  for (const [k, order] of orders) {
    const list = orig[k];
    if (Array.isArray(list)) {
      orig[k] = orderList(list, order, live.get(k) ?? [], schema?.field(k)?.mergeKey);
    }
  }
  return orig;
}

/**
 * Applies the patch's `$retainKeys` (removed from `patch`): fields of `orig` not listed are
 * cleared; the patch may set no field outside the list.
 */
function applyRetainKeys(orig: Obj, patch: Obj): void {
  const keep = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(keep)) {
    throw new StrategicMergePatchError("$retainKeys must be a list of field names");
  }
  for (const k of Object.keys(patch)) {
    if (!k.startsWith("$") && patch[k] !== null && !keep.includes(k)) {
      throw new StrategicMergePatchError(
        `The patch contains fields not present in $retainKeys: ${k}`,
      );
    }
  }
  for (const k of Object.keys(orig)) if (!keep.includes(k)) delete orig[k];
}

/**
 * Takes the `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` directives out of
 * `patch`: deletions are applied to `orig` now, the orders are returned by list name.
 */
function takeListDirectives(orig: Obj, patch: Obj): Map<string, unknown[]> {
  const orders = new Map<string, unknown[]>();
  for (const k of Object.keys(patch)) {
    if (k.startsWith(SET_ORDER)) {
      const v = patch[k];
      if (!Array.isArray(v)) throw new StrategicMergePatchError(`${k} must be a list`);
      orders.set(k.slice(SET_ORDER.length), v);
      delete patch[k];
    } else if (k.startsWith(DELETE_PRIMITIVE)) {
      const field = k.slice(DELETE_PRIMITIVE.length);
      const v = patch[k];
      delete patch[k];
      if (!Array.isArray(v)) throw new StrategicMergePatchError(`${k} must be a list`);
      const cur = orig[field];
      if (Array.isArray(cur)) {
        const left = cur.filter((x) => !v.some((d) => deepEqual(d, x)));
        if (left.length > 0) orig[field] = left;
        else delete orig[field];
      }
    }
  }
  return orders;
}

/** A list outside merge strategy: replaced, its `$patch: replace` markers dropped. */
function replaceList(v: unknown[]): unknown[] {
  return v.filter((x) => !(isObject(x) && x[PATCH] === "replace" && Object.keys(x).length === 1));
}

/**
 * Merges a list with `patchStrategy: merge`: `$patch: delete` items remove every item with their
 * key, a `$patch: replace` item makes the other items the whole list, the rest merge into the
 * item with their key (or are added); scalars are a union. The result is then ordered as
 * {@link orderList} says, with the patch list as the order.
 */
function mergeList(
  orig: unknown[],
  patch: unknown[],
  meta: StrategicField,
  name: string,
): unknown[] {
  const objects = patch.some(isObject) || orig.some(isObject);
  if (!objects) {
    const merged: unknown[] = [];
    for (const x of [...orig, ...patch]) if (!merged.some((y) => deepEqual(x, y))) merged.push(x);
    return orderList(merged, patch, orig, undefined);
  }
  const key = meta.mergeKey;
  if (!key) {
    throw new StrategicMergePatchError(`the list ${name} has no merge key`);
  }
  let out = [...orig];
  const items: Obj[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isObject(item)) {
      throw new StrategicMergePatchError(`the items of ${name} must be objects`);
    }
    if (!(PATCH in item)) {
      items.push(item);
      continue;
    }
    const directive = item[PATCH];
    if (directive === "delete") {
      if (!(key in item)) throw noMergeKey(item, key);
      out = out.filter((x) => !(isObject(x) && key in x && deepEqual(x[key], item[key])));
    } else if (directive === "replace") {
      replace = true;
    } else if (directive === "merge") {
      throw new StrategicMergePatchError("merging lists cannot yet be specified in the patch");
    } else {
      throw new StrategicMergePatchError(`Unknown patch type: ${JSON.stringify(directive)}`);
    }
  }
  if (replace) return items.map((x) => mergeMap({}, x, meta.schema) ?? {});
  const live = [...out];
  for (const item of items) {
    if (!(key in item)) throw noMergeKey(item, key);
    const idx = out.findIndex((x) => isObject(x) && key in x && deepEqual(x[key], item[key]));
    if (idx >= 0) {
      const merged = mergeMap(out[idx] as Obj, item, meta.schema);
      if (merged === undefined) out.splice(idx, 1);
      else out[idx] = merged;
    } else {
      const merged = mergeMap({}, item, meta.schema);
      if (merged !== undefined) out.push(merged);
    }
  }
  return orderList(out, items, live, key);
}

function noMergeKey(item: Obj, key: string): StrategicMergePatchError {
  return new StrategicMergePatchError(
    `map: ${goFormat(item)} does not contain declared merge key: ${key}`,
  );
}

/**
 * Orders a merged list as Kubernetes does: the items named in `order` (by merge key, or by value
 * for scalars) come in that order; every other item keeps its place relative to them from the
 * live list `live`, placed before the first ordered item that came after it there.
 */
function orderList(
  merged: unknown[],
  order: unknown[],
  live: unknown[],
  key: string | undefined,
): unknown[] {
  const id = (x: unknown) => (key ? (isObject(x) ? x[key] : undefined) : x);
  const indexIn = (list: unknown[], x: unknown) => {
    const v = id(x);
    return list.findIndex((y) => deepEqual(id(y), v));
  };
  const rank = (list: unknown[]) => (x: unknown) => {
    const i = indexIn(list, x);
    return i < 0 ? Infinity : i;
  };
  const byOrder = rank(order), byLive = rank(live);
  const ordered = merged.filter((x) => indexIn(order, x) >= 0)
    .sort((a, b) => byOrder(a) - byOrder(b));
  const others = merged.filter((x) => indexIn(order, x) < 0)
    .sort((a, b) => (byLive(a) === byLive(b) ? 0 : byLive(a) < byLive(b) ? -1 : 1));
  const out: unknown[] = [];
  let i = 0, j = 0;
  while (i < others.length || j < ordered.length) {
    if (j >= ordered.length) out.push(others[i++]);
    else if (i >= others.length) out.push(ordered[j++]);
    else {
      const l = indexIn(live, others[i]), r = indexIn(live, ordered[j]);
      if (l >= 0 && r >= 0 && l < r) out.push(others[i++]);
      else out.push(ordered[j++]);
    }
  }
  return out;
}

/**
 * Checks that the items of a patch list (other than `$patch` items) appear in its
 * `$setElementOrder` list, in the same relative order.
 */
function checkOrderList(patchList: unknown, order: unknown[], key: string | undefined): void {
  if (!Array.isArray(patchList) || patchList.length === 0 || order.length === 0) return;
  const items = key ? patchList.filter((x) => !(isObject(x) && x[PATCH] === "delete")) : patchList;
  const same = (a: unknown, b: unknown) => {
    if (!key) return deepEqual(a, b);
    if (!isObject(a)) throw new StrategicMergePatchError(`the items of the list must be objects`);
    if (!isObject(b)) throw new StrategicMergePatchError(`${SET_ORDER} items must be objects`);
    if (!(key in a)) throw noMergeKey(a, key);
    if (!(key in b)) throw noMergeKey(b, key);
    return deepEqual(a[key], b[key]);
  };
  let p = 0, o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isObject(item) && PATCH in item) {
      p++;
      continue;
    }
    if (same(item, order[o])) p++;
    o++;
  }
  if (p < items.length) {
    throw new StrategicMergePatchError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${
        SET_ORDER.slice(0, -1)
      } list:\n${goFormat(order)}\n`,
    );
  }
}

/** A value as Go's `%v` prints decoded JSON (maps with sorted keys). */
function goFormat(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goFormat).join(" ")}]`;
  if (isObject(v)) {
    return `map[${Object.keys(v).sort().map((k) => `${k}:${goFormat(v[k])}`).join(" ")}]`;
  }
  return String(v);
}
