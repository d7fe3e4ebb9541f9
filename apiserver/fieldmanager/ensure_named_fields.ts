/**
 * ensureNamedFieldsAreMembers: adds every struct field that has children in a set as a member
 * too, so that removing the set removes those fields themselves (used when pruning).
 *
 * @module
 */
import { FieldSet } from "./field_set.ts";
import type { Schema, TypeRef } from "./schema.ts";

/** A copy of `s` where struct fields with children are also members. */
export function ensureNamedFieldsAreMembers(schema: Schema, tr: TypeRef, s: FieldSet): FieldSet {
  const out = new FieldSet();
  const atom = schema.resolve(tr);
  for (const [k, pe] of s.members) out.members.set(k, pe);
  for (const [k, c] of s.children) {
    let childTr: TypeRef = {};
    if (pe_isField(c.pe) && atom.map) {
      const f = schema.field(atom.map, c.pe.name);
      if (f) out.members.set(k, c.pe);
      childTr = f?.type ?? atom.map.elementType ?? {};
    } else if (c.pe.kind === "key" && atom.list) {
      childTr = atom.list.elementType;
    }
    out.children.set(k, { pe: c.pe, set: ensureNamedFieldsAreMembers(schema, childTr, c.set) });
  }
  return out;
}

function pe_isField(pe: { kind: string }): pe is { kind: "field"; name: string } {
  return pe.kind === "field";
}
