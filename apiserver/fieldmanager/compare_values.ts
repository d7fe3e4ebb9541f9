/**
 * compareValues: the fields added, modified and removed between two values of one schema
 * (structured-merge-diff's `TypedValue.Compare`).
 *
 * @module
 */
import { FieldSet } from "./field_set.ts";
import { itemsByIdentity, listItemElement } from "./list_item.ts";
import { fieldElement, type PathElement, serializePathElement } from "./path_element.ts";
import { type Atom, deduceAtom, type ListType, type Schema, type TypeRef } from "./schema.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";
import { isJsonObject } from "./value.ts";

/** What changed from lhs to rhs. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Compares `lhs` to `rhs` (undefined = absent). Throws TypedError on invalid lists. */
export function compareTyped(
  schema: Schema,
  tr: TypeRef,
  lhs: unknown,
  rhs: unknown,
): Comparison {
  const c: Comparison = {
    added: new FieldSet(),
    modified: new FieldSet(),
    removed: new FieldSet(),
  };
  walk(schema, tr, lhs, rhs, [], c);
  return c;
}

/** Whether nothing changed. */
export function isSame(c: Comparison): boolean {
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}

function walk(
  schema: Schema,
  tr: TypeRef,
  lhs: unknown,
  rhs: unknown,
  path: PathElement[],
  c: Comparison,
): void {
  if (lhs === undefined && rhs !== undefined && path.length > 0) {
    // Everything under a new field is added: build that part of the trie directly.
    const parent = path.length === 1 ? c.added : c.added.descendPath(path, path.length - 1);
    addAll(schema, tr, rhs, path, parent);
    return;
  }
  const atom: Atom = deduceAtom(schema.resolve(tr), rhs !== undefined ? rhs : lhs);
  let inLeaf = false;
  const leaf = () => {
    inLeaf = true;
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
  };
  if (atom.map) {
    const l = isJsonObject(lhs) ? lhs : undefined;
    const r = isJsonObject(rhs) ? rhs : undefined;
    const empty = (!l || Object.keys(l).length === 0) && (!r || Object.keys(r).length === 0);
    if (atom.map.elementRelationship === "atomic" || empty) leaf();
    else {
      const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
      for (const key of keys) {
        const lv = l?.[key], rv = r?.[key];
        if (lv === undefined && rv === undefined) continue;
        walk(schema, schema.memberType(atom.map, key), lv, rv, [...path, fieldElement(key)], c);
      }
    }
  } else if (atom.scalar) {
    leaf();
  } else if (atom.list) {
    const l = Array.isArray(lhs) ? lhs : undefined;
    const r = Array.isArray(rhs) ? rhs : undefined;
    const empty = (!l || l.length === 0) && (!r || r.length === 0);
    if (atom.list.elementRelationship !== "associative" || empty) leaf();
    else compareList(schema, atom.list, l ?? [], r ?? [], path, c);
  } else {
    leaf();
  }
  if (!inLeaf) {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
  }
}

function compareList(
  schema: Schema,
  list: ListType,
  lhs: unknown[],
  rhs: unknown[],
  path: PathElement[],
  c: Comparison,
): void {
  const all: PathElement[] = [];
  const lValues = new Map<string, unknown[]>();
  const rValues = new Map<string, unknown[]>();
  lhs.forEach((item, i) => {
    const pe = listItemElement(schema, list, item, path, i);
    const k = serializePathElement(pe);
    const got = lValues.get(k);
    if (got) got.push(item);
    else {
      lValues.set(k, [item]);
      all.push(pe);
    }
  });
  rhs.forEach((item, i) => {
    const pe = listItemElement(schema, list, item, path, i);
    const k = serializePathElement(pe);
    const got = rValues.get(k);
    if (got) got.push(item);
    else {
      rValues.set(k, [item]);
      if (!lValues.has(k)) all.push(pe);
    }
  });
  for (const pe of all) {
    const k = serializePathElement(pe);
    const ll = lValues.get(k) ?? [], rl = rValues.get(k) ?? [];
    const child = [...path, pe];
    if (ll.length <= 1 && rl.length <= 1) {
      walk(schema, list.elementType, ll[0], rl[0], child, c);
    } else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqual(ll, rl)) c.modified.insert(child);
    } else if (ll.length >= 2) {
      if (rl.length !== 0) walk(schema, list.elementType, undefined, rl[0], child, c);
      c.removed.insert(child);
    } else {
      if (ll.length !== 0) walk(schema, list.elementType, ll[0], undefined, child, c);
      c.added.insert(child);
    }
  }
}

/**
 * What {@link walk} adds for a value `v` absent on the left, inserted into `parent` (the set
 * of `path` without its last element): every leaf, every map and associative list on the way
 * (after its contents) and every item of an associative list. `path` is used as a stack.
 */
function addAll(
  schema: Schema,
  tr: TypeRef,
  v: unknown,
  path: PathElement[],
  parent: FieldSet,
): void {
  const pe = path[path.length - 1];
  const atom: Atom = deduceAtom(schema.resolve(tr), v);
  if (atom.map) {
    if (atom.map.elementRelationship !== "atomic" && isJsonObject(v)) {
      let node: FieldSet | undefined;
      for (const key of Object.keys(v)) {
        const value = v[key];
        if (value === undefined) continue;
        node ??= parent.descend(pe);
        path.push(fieldElement(key));
        addAll(schema, schema.memberType(atom.map, key), value, path, node);
        path.pop();
      }
    }
  } else if (atom.list) {
    const list = atom.list;
    if (list.elementRelationship === "associative" && Array.isArray(v) && v.length > 0) {
      // An identity several items share is added as one path.
      const items = itemsByIdentity(schema, list, v, path);
      const node = parent.descend(pe);
      for (const [k, { pe: ipe, item, count }] of items) {
        if (count > 1) {
          node.members.set(k, ipe);
          continue;
        }
        path.push(ipe);
        addAll(schema, list.elementType, item, path, node);
        path.pop();
      }
    }
  }
  parent.members.set(serializePathElement(pe), pe);
}
