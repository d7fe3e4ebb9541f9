/**
 * extractItems: the part of a value a field set covers (structured-merge-diff's
 * `TypedValue.ExtractItems`): what a manager owns, as an apply configuration.
 *
 * @module
 */
import type { FieldSet } from "./field_set.ts";
import { listItemElement } from "./list_item.ts";
import { fieldElement, serializePathElement } from "./path_element.ts";
import { deduceAtom, type Schema, type TypeRef } from "./schema.ts";
import { isJsonObject, type JsonObject } from "./value.ts";

/** The fields of `value` that `set` holds (undefined when none). */
export function extractItems(schema: Schema, tr: TypeRef, value: unknown, set: FieldSet): unknown {
  const atom = deduceAtom(schema.resolve(tr), value);
  if (atom.map) {
    if (!isJsonObject(value) || Object.keys(value).length === 0) return undefined;
    if (atom.map.elementRelationship === "atomic") return value;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const key = serializePathElement(fieldElement(k));
      const sub = set.children.get(key)?.set;
      const t = schema.memberType(atom.map, k);
      if (set.members.has(key)) {
        // As structured-merge-diff does: a member is extracted with the current level's set.
        out[k] = extractItems(schema, t, v, set) ?? null;
      } else if (sub && !sub.empty()) {
        const r = extractItems(schema, t, v, sub);
        if (r !== undefined) out[k] = r;
      }
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (atom.scalar) return value;
  if (atom.list) {
    if (!Array.isArray(value) || value.length === 0) return undefined;
    const list = atom.list;
    if (list.elementRelationship !== "associative") return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = listItemElement(schema, list, item, [], i);
      const key = serializePathElement(pe);
      const sub = set.children.get(key)?.set;
      if (set.members.has(key) && !(sub && !sub.empty())) {
        out.push(extractItems(schema, list.elementType, item, set) ?? null);
      } else if (sub && !sub.empty()) {
        const r = extractItems(schema, list.elementType, item, sub);
        if (r !== undefined) out.push(r);
      }
    });
    return out.length > 0 ? out : undefined;
  }
  return value;
}
