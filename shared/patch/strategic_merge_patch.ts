/**
 * Strategic merge patch (`application/strategic-merge-patch+json`): a merge patch in which
 * lists marked `patchStrategy: merge` are merged (objects by their merge key, scalars as a
 * union) instead of replaced, with the directives Kubernetes clients send: `$patch`
 * (`replace`, `delete`, `merge`), `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`
 * and `$retainKeys`.
 *
 * @module
 */
import type { StrategicField, StrategicSchema } from "./strategic_schema.ts";

/** A patch that cannot be applied (answered 422). */
export class StrategicMergePatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StrategicMergePatchError";
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

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
  const base = isObj(original) ? structuredClone(original) : {};
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
  if (RETAIN_KEYS in patch) {
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
        const left = cur.filter((x) => !v.some((d) => equal(d, x)));
        if (left.length > 0) orig[field] = left;
        else delete orig[field];
      }
    }
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
    if (isObj(v)) {
      const merged = mergeMap(isObj(cur) ? cur : {}, v, meta?.schema);
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
    if (Array.isArray(list)) orig[k] = sortByOrder(list, order, schema?.field(k)?.mergeKey);
  }
  return orig;
}

/** A list outside merge strategy: replaced, its `$patch: replace` markers dropped. */
function replaceList(v: unknown[]): unknown[] {
  return v.filter((x) => !(isObj(x) && x[PATCH] === "replace" && Object.keys(x).length === 1));
}

function mergeList(
  orig: unknown[],
  patch: unknown[],
  meta: StrategicField,
  name: string,
): unknown[] {
  if (patch.some((x) => isObj(x) && x[PATCH] === "replace")) {
    const rest = patch.filter((x) => !(isObj(x) && x[PATCH] === "replace"));
    return rest.map((x) => (isObj(x) ? mergeMap({}, x, meta.schema) ?? {} : x));
  }
  const objects = patch.some(isObj) || orig.some(isObj);
  if (!objects) {
    const out = [...orig];
    for (const x of patch) if (!out.some((y) => equal(x, y))) out.push(x);
    return out;
  }
  const key = meta.mergeKey;
  if (!key) {
    throw new StrategicMergePatchError(`the list ${name} has no merge key`);
  }
  const out = [...orig];
  for (const item of patch) {
    if (!isObj(item)) {
      throw new StrategicMergePatchError(`the items of ${name} must be objects`);
    }
    if (!(key in item)) {
      throw new StrategicMergePatchError(
        `map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`,
      );
    }
    const idx = out.findIndex((x) => isObj(x) && equal(x[key], item[key]));
    if (item[PATCH] === "delete") {
      if (idx >= 0) {
        for (let i = out.length - 1; i >= 0; i--) {
          const x = out[i];
          if (isObj(x) && equal(x[key], item[key])) out.splice(i, 1);
        }
      }
      continue;
    }
    if (idx >= 0) {
      const merged = mergeMap(out[idx] as Obj, item, meta.schema);
      if (merged === undefined) out.splice(idx, 1);
      else out[idx] = merged;
    } else {
      const merged = mergeMap({}, item, meta.schema);
      if (merged !== undefined) out.push(merged);
    }
  }
  return out;
}

function sortByOrder(list: unknown[], order: unknown[], key: string | undefined): unknown[] {
  const id = (x: unknown) => (key && isObj(x) ? x[key] : x);
  const pos = (x: unknown) => order.findIndex((o) => equal(key && isObj(o) ? o[key] : o, id(x)));
  const inOrder = list.filter((x) => pos(x) >= 0).sort((a, b) => pos(a) - pos(b));
  const others = list.filter((x) => pos(x) < 0);
  return [...inOrder, ...others];
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && equal(a[k], b[k]));
  }
  return false;
}
