/**
 * validateTyped: checks that a value has the shape its schema declares (structured-merge-diff's
 * `TypedValue.Validate`): a map where a map is declared, a list where a list is, and a scalar of
 * the declared kind (string, number, boolean; any of those for an untyped scalar). Null fits
 * every type. Members a struct does not declare are not checked here: field validation decides
 * what becomes of them.
 *
 * Server-side apply runs this on the applied configuration before merging, as
 * kube-apiserver's conversion to a typed value does, so that `metadata: 7` or `labels: 5`
 * is a 400 instead of a merge that drops or stores a malformed field.
 *
 * @module
 */
import { fieldElement, type PathElement } from "./path_element.ts";
import { type Atom, deduceAtom, type Schema, type TypeRef } from "./schema.ts";
import { TypedError } from "./typed_error.ts";
import { isJsonObject, valueToString } from "./value.ts";

/** Throws TypedError at the first member of `value` that does not fit type `tr`. */
export function validateTyped(schema: Schema, tr: TypeRef, value: unknown): void {
  walk(schema, tr, value, []);
}

function walk(schema: Schema, tr: TypeRef, v: unknown, path: PathElement[]): void {
  if (v === null || v === undefined) return;
  const declared = schema.resolve(tr);
  const atom: Atom = deduceAtom(declared, v);
  if (atom.map && isJsonObject(v)) {
    for (const [key, member] of Object.entries(v)) {
      walk(schema, schema.memberType(atom.map, key), member, [...path, fieldElement(key)]);
    }
    return;
  }
  if (atom.list && Array.isArray(v)) {
    v.forEach((item, index) => {
      walk(schema, atom.list!.elementType, item, [...path, { kind: "index", index }]);
    });
    return;
  }
  if (atom.scalar && !isJsonObject(v) && !Array.isArray(v)) {
    const fits = atom.scalar === "string"
      ? typeof v === "string"
      : atom.scalar === "numeric"
      ? typeof v === "number"
      : atom.scalar === "boolean"
      ? typeof v === "boolean"
      : true;
    if (!fits) throw new TypedError(path, `expected ${scalarName(atom.scalar)}, got ${shown(v)}`);
    return;
  }
  // A reference to nothing (no scalar, list or map) accepts any value.
  if (!declared.map && !declared.list && !declared.scalar) return;
  const expected = declared.map ? "map" : declared.list ? "list" : scalarName(declared.scalar!);
  throw new TypedError(path, `expected ${expected}, got ${shown(v)}`);
}

function scalarName(s: NonNullable<Atom["scalar"]>): string {
  switch (s) {
    case "numeric":
      return "numeric (int or float)";
    case "untyped":
      return "any scalar";
    default:
      return s;
  }
}

function shown(v: unknown): string {
  const s = valueToString(v);
  return s.length > 100 ? `${s.slice(0, 100)}...` : s;
}
