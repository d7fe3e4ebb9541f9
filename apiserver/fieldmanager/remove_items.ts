/**
 * removeItems: a value without the fields of a set (structured-merge-diff's
 * `TypedValue.RemoveItems`). A map or list emptied by the removal is left as null (built-in
 * kinds drop such nulls, as decoding into typed objects does).
 *
 * @module
 */
import type { FieldSet } from "./field_set.ts";
import { listItemElement } from "./list_item.ts";
import { fieldElement, serializePathElement } from "./path_element.ts";
import { deduceAtom, type Schema, type TypeRef } from "./schema.ts";
import { isJsonObject, type JsonObject } from "./value.ts";

/** `value` without the paths of `toRemove` (undefined when nothing is left). */
export function removeItems(
  schema: Schema,
  tr: TypeRef,
  value: unknown,
  toRemove: FieldSet,
): unknown {
  const atom = deduceAtom(schema.resolve(tr), value);
  if (atom.map) {
    if (!isJsonObject(value) || Object.keys(value).length === 0) return undefined;
    if (atom.map.elementRelationship === "atomic") return undefined;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const key = serializePathElement(fieldElement(k));
      if (toRemove.members.has(key)) continue;
      const sub = toRemove.children.get(key)?.set;
      if (sub && !sub.empty()) {
        // Emptied members stay as null, as structured-merge-diff leaves them.
        out[k] = removeItems(schema, schema.memberType(atom.map, k), v, sub) ?? null;
      } else out[k] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (atom.scalar) return value;
  if (atom.list) {
    if (!Array.isArray(value) || value.length === 0) return undefined;
    const list = atom.list;
    if (list.elementRelationship !== "associative") return undefined;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = listItemElement(schema, list, item, [], i);
      const key = serializePathElement(pe);
      if (toRemove.members.has(key)) return;
      const sub = toRemove.children.get(key)?.set;
      if (sub && !sub.empty()) {
        out.push(removeItems(schema, list.elementType, item, sub) ?? null);
      } else out.push(item);
    });
    return out.length > 0 ? out : undefined;
  }
  return value;
}
