/**
 * toFieldSet: the set of fields a value sets, per its schema (structured-merge-diff's
 * `TypedValue.ToFieldSet`). Scalars, atomic lists and maps are leaves; items of associative
 * lists are members themselves; members of maps that are not struct fields are members.
 *
 * @module
 */
import { FieldSet } from "./field_set.ts";
import { listItemElement } from "./list_item.ts";
import { fieldElement, type PathElement, serializePathElement } from "./path_element.ts";
import { type Atom, deduceAtom, type Schema, type TypeRef } from "./schema.ts";
import { isJsonObject } from "./value.ts";

/** The field set of `value` of type `tr`. Throws TypedError for invalid associative lists. */
export function toFieldSet(schema: Schema, tr: TypeRef, value: unknown): FieldSet {
  const set = new FieldSet();
  walk(schema, tr, value, [], set);
  return set;
}

function walk(schema: Schema, tr: TypeRef, v: unknown, path: PathElement[], set: FieldSet): void {
  const atom: Atom = deduceAtom(schema.resolve(tr), v);
  if (atom.map) {
    if (atom.map.elementRelationship === "atomic") {
      set.insert(path);
      return;
    }
    if (!isJsonObject(v)) return;
    for (const [key, val] of Object.entries(v)) {
      if (val === undefined) continue;
      const pe = fieldElement(key);
      const child = [...path, pe];
      walk(schema, schema.memberType(atom.map, key), val, child, set);
      if (val === null || (isJsonObject(val) && Object.keys(val).length === 0)) {
        set.insert(child);
      } else if (!schema.field(atom.map, key)) {
        set.insert(child);
      }
    }
    return;
  }
  if (atom.scalar) {
    set.insert(path);
    return;
  }
  if (atom.list) {
    const list = atom.list;
    if (list.elementRelationship !== "associative") {
      set.insert(path);
      return;
    }
    if (!Array.isArray(v)) return;
    const pes = v.map((item, i) => listItemElement(schema, list, item, path, i));
    const seen = new Set<string>();
    const dups = new Set<string>();
    pes.forEach((pe) => {
      const k = serializePathElement(pe);
      if (seen.has(k)) {
        if (!dups.has(k)) {
          set.insert([...path, pe]);
          dups.add(k);
        }
      } else seen.add(k);
    });
    v.forEach((item, i) => {
      const pe = pes[i];
      if (dups.has(serializePathElement(pe))) return;
      const child = [...path, pe];
      walk(schema, list.elementType, item, child, set);
      set.insert(child);
    });
  }
}
