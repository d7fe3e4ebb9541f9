/**
 * The fieldsV1 encoding of a field set, as kube-apiserver writes it: a JSON object keyed by
 * serialized path elements, `{}` for a leaf, and `".": {}` when a node with children is itself
 * a member. Keys are written in path element order.
 *
 * @module
 */
import { FieldSet } from "./field_set.ts";
import {
  comparePathElements,
  deserializePathElement,
  PathElementError,
  serializePathElement,
  UNKNOWN_ELEMENT,
} from "./path_element.ts";
import { isJsonObject, type JsonObject } from "./value.ts";

/** Encodes a field set as a fieldsV1 object. */
export function setToFieldsV1(s: FieldSet): JsonObject {
  return emit(s, false);
}

function emit(s: FieldSet, includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  const members = s.sortedMembers();
  const children = s.sortedChildren();
  if (includeSelf && (members.length > 0 || children.length > 0)) out["."] = {};
  let mi = 0, ci = 0;
  while (mi < members.length || ci < children.length) {
    const m = mi < members.length ? members[mi] : undefined;
    const c = ci < children.length ? children[ci] : undefined;
    const d = m && c ? comparePathElements(m, c.pe) : m ? -1 : 1;
    if (d < 0) {
      out[serializePathElement(m!)] = {};
      mi++;
    } else if (d > 0) {
      out[serializePathElement(c!.pe)] = emit(c!.set, false);
      ci++;
    } else {
      out[serializePathElement(c!.pe)] = emit(c!.set, true);
      mi++;
      ci++;
    }
  }
  return out;
}

/** Thrown for a fieldsV1 value that is not a valid field set. */
export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldsV1Error";
  }
}

/** Decodes a fieldsV1 object into a field set (unknown element prefixes are skipped). */
export function fieldsV1ToSet(v: unknown): FieldSet {
  if (v === undefined || v === null) return new FieldSet();
  if (!isJsonObject(v)) throw new FieldsV1Error("fieldsV1 must be a JSON object");
  return read(v).children ?? new FieldSet();
}

function read(v: JsonObject): { children?: FieldSet; member: boolean } {
  let children: FieldSet | undefined;
  let member = false;
  for (const [key, val] of Object.entries(v)) {
    if (key === ".") {
      member = true;
      continue;
    }
    let pe;
    try {
      pe = deserializePathElement(key);
    } catch (err) {
      if (err instanceof PathElementError) {
        throw new FieldsV1Error(`parsing key as path element: ${err.message}`);
      }
      throw err;
    }
    if (pe === UNKNOWN_ELEMENT) continue;
    if (!isJsonObject(val)) throw new FieldsV1Error(`value of ${key} must be an object`);
    const r = read(val);
    children ??= new FieldSet();
    if (r.member) children.members.set(serializePathElement(pe), pe);
    if (r.children) {
      const k = serializePathElement(pe);
      const existing = children.children.get(k);
      children.children.set(k, {
        pe,
        set: existing ? existing.set.union(r.children) : r.children,
      });
    }
  }
  if (!children) member = true;
  return { children, member };
}
