/**
 * The value validations of a structural schema (`allOf`, `anyOf`, `oneOf`, `not`): they may
 * restrict values but not declare structure, so the generic and extension fields are forbidden
 * inside them; and every `pattern` must compile as Go's RE2.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { forbidden, invalid } from "../../../../shared/api/validation/field_errors.ts";
import { compileRe2, Re2SyntaxError } from "../../../cel/mod.ts";
import { childPath, indexPath, keyPath } from "./field_paths.ts";
import { additionalOf, itemsOf } from "./schema_nodes.ts";

/** Where a node sits: the root, an array's items, or an object's field. */
export type Level = "root" | "item" | "field";

/**
 * Checks the junctors of `v` (and, when `nested`, that `v` itself only holds value
 * validations). `skipAnyOf`/`skipFirstAllOfAnyOf` are the int-or-string exceptions.
 */
export function validateNestedValueValidation(
  v: JSONSchemaProps,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  path: string,
  nested: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  const sub = (n: JSONSchemaProps, p: string, skip = false, l: Level = lvl) =>
    errs.push(...validateNestedValueValidation(n, skip, false, l, p, true));
  if (!skipAnyOf) v.anyOf?.forEach((n, i) => sub(n, indexPath(childPath(path, "anyOf"), i)));
  v.allOf?.forEach((n, i) =>
    sub(n, indexPath(childPath(path, "allOf"), i), skipFirstAllOfAnyOf && i === 0)
  );
  v.oneOf?.forEach((n, i) => sub(n, indexPath(childPath(path, "oneOf"), i)));
  if (v.not) sub(v.not, childPath(path, "not"));
  errs.push(...patternError(v, path));
  if (!nested) return errs;
  const items = itemsOf(v);
  if (items) sub(items, childPath(path, "items"));
  for (const [k, p] of Object.entries(v.properties ?? {})) {
    sub(p, keyPath(childPath(path, "properties"), k), false, "field");
  }
  errs.push(...forbiddenInNested(v, path));
  return errs;
}

function patternError(v: JSONSchemaProps, path: string): FieldError[] {
  if (typeof v.pattern !== "string" || v.pattern === "") return [];
  try {
    compileRe2(v.pattern);
    return [];
  } catch (e) {
    if (!(e instanceof Re2SyntaxError)) throw e;
    return [invalid(
      childPath(path, "pattern"),
      v.pattern,
      `must be a valid regular expression, but isn't: ${e.message}`,
    )];
  }
}

const EMPTY = "must be empty to be structural";
const UNDEFINED = "must be undefined to be structural";
const FALSE = "must be false to be structural";

function forbiddenInNested(v: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const f = (name: string, msg: string) => errs.push(forbidden(childPath(path, name), msg));
  if (v.type) f("type", EMPTY);
  if (v.additionalProperties !== undefined) f("additionalProperties", UNDEFINED);
  else if (additionalOf(v)) f("additionalProperties", UNDEFINED);
  if (v.default != null) f("default", UNDEFINED);
  if (v.title) f("title", EMPTY);
  if (v.description) f("description", EMPTY);
  if (v.nullable) f("nullable", FALSE);
  if (v.externalDocs) f("externalDocs", UNDEFINED);
  if (v["x-kubernetes-preserve-unknown-fields"]) f("x-kubernetes-preserve-unknown-fields", FALSE);
  if (v["x-kubernetes-embedded-resource"]) f("x-kubernetes-embedded-resource", FALSE);
  if (v["x-kubernetes-int-or-string"]) f("x-kubernetes-int-or-string", FALSE);
  if (v["x-kubernetes-list-map-keys"]?.length) f("x-kubernetes-list-map-keys", EMPTY);
  if (v["x-kubernetes-list-type"] !== undefined) f("x-kubernetes-list-type", UNDEFINED);
  if (v["x-kubernetes-map-type"] !== undefined) f("x-kubernetes-map-type", UNDEFINED);
  if (v["x-kubernetes-validations"]?.length) f("x-kubernetes-validations", EMPTY);
  if (v.properties?.metadata) {
    errs.push(forbidden(
      keyPath(childPath(path, "properties"), "metadata"),
      "must not be specified in a nested context",
    ));
  }
  return errs;
}
