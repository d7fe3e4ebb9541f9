/**
 * mergeValues: merges an applied configuration (rhs) into a live value (lhs) per the schema
 * (structured-merge-diff's `TypedValue.Merge`): maps merge member by member, associative lists
 * item by item (keeping the live order and placing new items the way the config orders them),
 * and scalars, atomic lists and atomic maps are replaced.
 *
 * @module
 */
import { listItemElement } from "./list_item.ts";
import { fieldElement, type PathElement, serializePathElement } from "./path_element.ts";
import { type Atom, deduceAtom, type ListType, type Schema, type TypeRef } from "./schema.ts";
import { TypedError } from "./typed_error.ts";
import { isJsonObject, type JsonObject } from "./value.ts";

/** Merges `rhs` into `lhs` (undefined = absent). Throws TypedError on invalid lists. */
export function mergeValues(schema: Schema, tr: TypeRef, lhs: unknown, rhs: unknown): unknown {
  return merge(schema, tr, lhs, rhs, []);
}

function merge(
  schema: Schema,
  tr: TypeRef,
  lhs: unknown,
  rhs: unknown,
  path: PathElement[],
): unknown {
  const resolved = schema.resolve(tr);
  const atom: Atom = deduceAtom(resolved, rhs !== undefined ? rhs : lhs);
  const leaf = () => (rhs !== undefined ? rhs : lhs);
  if (atom.map) {
    const l = isJsonObject(lhs) ? lhs : undefined;
    const r = isJsonObject(rhs) ? rhs : undefined;
    const lEmpty = !l || Object.keys(l).length === 0;
    const rEmpty = !r || Object.keys(r).length === 0;
    if (atom.map.elementRelationship === "atomic" || (lEmpty && rEmpty)) return leaf();
    const out: JsonObject = {};
    const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
    for (const key of keys) {
      const lv = l?.[key], rv = r?.[key];
      if (lv === undefined && rv === undefined) continue;
      const v = merge(schema, schema.memberType(atom.map, key), lv, rv, [
        ...path,
        fieldElement(key),
      ]);
      if (v !== undefined) out[key] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (atom.scalar) return leaf();
  if (atom.list) {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    const empty = (!l || l.length === 0) && (!r || r.length === 0);
    if (atom.list.elementRelationship !== "associative" || empty) return leaf();
    return mergeList(schema, atom.list, l ?? [], r ?? [], path);
  }
  return leaf();
}

interface Indexed {
  pes: PathElement[];
  keys: string[];
  /** Item by key; null marks a duplicated key. */
  observed: Map<string, unknown>;
}

function index(
  schema: Schema,
  list: ListType,
  items: unknown[],
  path: PathElement[],
  allowDuplicates: boolean,
): Indexed {
  const out: Indexed = { pes: [], keys: [], observed: new Map() };
  items.forEach((item, i) => {
    const pe = listItemElement(schema, list, item, path, i);
    const k = serializePathElement(pe);
    if (out.observed.has(k)) {
      if (!allowDuplicates) {
        throw new TypedError(path, `duplicate entries for key ${pathElementText(pe)}`);
      }
      out.observed.set(k, null);
    } else out.observed.set(k, item);
    out.pes.push(pe);
    out.keys.push(k);
  });
  return out;
}

function pathElementText(pe: PathElement): string {
  return serializePathElement(pe).slice(2);
}

function mergeList(
  schema: Schema,
  list: ListType,
  lhs: unknown[],
  rhs: unknown[],
  path: PathElement[],
): unknown {
  const R = index(schema, list, rhs, path, false);
  const L = index(schema, list, lhs, path, true);
  const out: unknown[] = [];
  const sharedOrder = R.keys.filter((k) => L.observed.has(k));
  let nextShared: string | undefined = sharedOrder.shift();
  const mergedRHS = new Set<string>();
  const item = (pe: PathElement, l: unknown, r: unknown) => {
    const v = merge(schema, list.elementType, l, r, [...path, pe]);
    if (v !== undefined) out.push(v);
  };
  let lI = 0, rI = 0;
  while (lI < L.keys.length || rI < R.keys.length) {
    if (lI < L.keys.length && rI < R.keys.length) {
      const k = L.keys[lI];
      if (k === R.keys[rI]) {
        mergedRHS.add(k);
        item(L.pes[lI], L.observed.get(k), R.observed.get(k));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (R.observed.has(k) && nextShared !== undefined && nextShared !== k) {
        lI++;
        continue;
      }
    }
    if (lI < L.keys.length) {
      const k = L.keys[lI];
      if (!R.observed.has(k)) {
        item(L.pes[lI], lhs[lI], undefined);
        lI++;
        continue;
      } else if (mergedRHS.has(k)) {
        lI++;
      }
    }
    if (rI < R.keys.length) {
      const k = R.keys[rI];
      mergedRHS.add(k);
      const l = L.observed.has(k) ? L.observed.get(k) : undefined;
      item(R.pes[rI], l, R.observed.get(k));
      rI++;
      if (nextShared !== undefined && nextShared === k) nextShared = sharedOrder.shift();
    }
  }
  return out.length > 0 ? out : undefined;
}
