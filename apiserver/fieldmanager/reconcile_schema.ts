/**
 * reconcileFieldSetWithSchema: adapts a manager's set to a schema in which a granular list or
 * map became atomic: an owner of any part of it now owns the whole structure (and nothing
 * below it).
 *
 * @module
 */
import { FieldSet } from "./field_set.ts";
import { type Path, type PathElement, serializePathElement } from "./path_element.ts";
import type { MapType, Schema, TypeRef } from "./schema.ts";
import { UNTYPED_DEDUCED } from "./schema.ts";

/** The reconciled set, or undefined when nothing changes. */
export function reconcileFieldSetWithSchema(
  schema: Schema,
  tr: TypeRef,
  set: FieldSet,
): FieldSet | undefined {
  const toRemove = new FieldSet();
  const toAdd = new FieldSet();
  walk(schema, tr, set, [], false, toRemove, toAdd);
  if (toRemove.empty() && toAdd.empty()) return undefined;
  return set.recursiveDifference(toRemove).union(toAdd);
}

function isUntypedDeducedMap(schema: Schema, m: MapType): boolean {
  if (m.fields && m.fields.length > 0) return false;
  const et = m.elementType;
  if (!et) return false;
  if (et.namedType !== undefined) return et.namedType === UNTYPED_DEDUCED;
  return schema.resolve(et).scalar === "untyped";
}

function walk(
  schema: Schema,
  tr: TypeRef,
  set: FieldSet | undefined,
  path: Path,
  isAtomic: boolean,
  toRemove: FieldSet,
  toAdd: FieldSet,
): void {
  const atom = schema.resolve(tr);
  const visit = (typeOf: (pe: PathElement) => TypeRef | undefined) => {
    if (!set) return;
    const handle = (pe: PathElement, isMember: boolean) => {
      const t = typeOf(pe);
      if (!t) return;
      const child = set.children.get(serializePathElement(pe));
      walk(schema, t, child?.set, [...path, pe], isMember && !child, toRemove, toAdd);
    };
    for (const c of set.sortedChildren()) {
      if (!set.members.has(serializePathElement(c.pe))) handle(c.pe, false);
    }
    for (const pe of set.sortedMembers()) handle(pe, true);
  };
  if (atom.map) {
    const m = atom.map;
    if (isUntypedDeducedMap(schema, m)) return;
    if (!isAtomic && m.elementRelationship === "atomic") {
      if (set && set.size() > 0) {
        toRemove.insert(path);
        toAdd.insert(path);
      }
      return;
    }
    visit((pe) => {
      if (pe.kind !== "field") return m.elementType;
      return schema.field(m, pe.name)?.type ?? m.elementType;
    });
    return;
  }
  if (atom.scalar) return;
  if (atom.list) {
    const l = atom.list;
    if (!isAtomic && l.elementRelationship !== "associative") {
      toRemove.insert(path);
      toAdd.insert(path);
      return;
    }
    visit(() => l.elementType);
  }
}
