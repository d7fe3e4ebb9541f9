/**
 * createdFieldsV1: the fieldsV1 of what a create writes, built in one walk of the object. The
 * general path of a non-apply write compares the live object with the new one
 * ({@link compareTyped}), builds field sets, takes their differences with the fields no manager
 * owns and encodes the result ({@link setToFieldsV1}); for a create every field is added, so
 * the same result comes straight from the object, at a fraction of the cost (figures in
 * scripts/bench/README.md).
 *
 * @module
 */
import type { FieldSet } from "./field_set.ts";
import { itemsByIdentity } from "./list_item.ts";
import { comparePathElements, fieldElement, type PathElement } from "./path_element.ts";
import { type Atom, deduceAtom, type Schema, type TypeRef } from "./schema.ts";
import { isJsonObject, type JsonObject } from "./value.ts";

/** One element of a node: its path element, its fieldsV1 key and its encoding. */
type Entry = [PathElement, string, JsonObject];

/**
 * The fieldsV1 object of the fields that creating `obj` (of root type `root`) adds, without
 * the members of `strip` (their children stay: the set difference) and without anything at or
 * below a member of `ignore` (the recursive difference); undefined when nothing is left. It
 * equals `setToFieldsV1(compareTyped(schema, root, undefined, obj).added
 * .recursiveDifference(ignore).difference(strip))`. Throws TypedError where that does (an
 * item of an associative list without its keys).
 */
export function createdFieldsV1(
  schema: Schema,
  root: TypeRef,
  obj: JsonObject,
  strip: FieldSet | undefined,
  ignore: FieldSet | undefined,
): JsonObject | undefined {
  const atom: Atom = deduceAtom(schema.resolve(root), obj);
  // The root itself is never a member, and a root that is no granular map adds nothing.
  if (!atom.map || atom.map.elementRelationship === "atomic") return undefined;
  return node(schema, atom, obj, [], strip, ignore, false);
}

/**
 * The encoding of the node at `path` holding `v`: `{}` for a member without children, its
 * children (after `".": {}` when it is a member itself), or undefined when it is neither.
 * `path` is used as a stack, for the errors of associative list items.
 */
function node(
  schema: Schema,
  atom: Atom,
  v: unknown,
  path: PathElement[],
  strip: FieldSet | undefined,
  ignore: FieldSet | undefined,
  member: boolean,
): JsonObject | undefined {
  let entries: Entry[] | undefined;
  const add = (pe: PathElement, key: string, tr: TypeRef, value: unknown, leaf: boolean) => {
    if (ignore?.members.has(key)) return;
    const childStrip = strip?.children.get(key)?.set;
    const childIgnore = ignore?.children.get(key)?.set;
    const isMember = !strip?.members.has(key);
    let out: JsonObject | undefined;
    if (leaf) out = isMember ? {} : undefined;
    else {
      path.push(pe);
      out = node(
        schema,
        deduceAtom(schema.resolve(tr), value),
        value,
        path,
        childStrip,
        childIgnore,
        isMember,
      );
      path.pop();
    }
    if (out) (entries ??= []).push([pe, key, out]);
  };
  if (atom.map) {
    if (atom.map.elementRelationship !== "atomic" && isJsonObject(v)) {
      const map = atom.map;
      for (const key of Object.keys(v)) {
        const value = v[key];
        if (value === undefined) continue;
        add(fieldElement(key), `f:${key}`, schema.memberType(map, key), value, false);
      }
    }
  } else if (atom.list) {
    const list = atom.list;
    if (list.elementRelationship === "associative" && Array.isArray(v) && v.length > 0) {
      // An identity several items share is one leaf.
      for (const [k, { pe, item, count }] of itemsByIdentity(schema, list, v, path)) {
        add(pe, k, list.elementType, item, count > 1);
      }
    }
  }
  if (!entries) return member ? {} : undefined;
  if (entries.length > 1) entries.sort((a, b) => comparePathElements(a[0], b[0]));
  const out: JsonObject = member ? { ".": {} } : {};
  for (const [, key, value] of entries) out[key] = value;
  return out;
}
