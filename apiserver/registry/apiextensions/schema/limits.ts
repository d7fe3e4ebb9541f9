/**
 * Bounds on hostile schemas: nesting depth is measured without recursion and refused past
 * {@link MAX_SCHEMA_DEPTH}, so no later walk over the schema can exhaust the stack, and the
 * number of CEL rules is bounded by {@link MAX_SCHEMA_RULES}.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { forbidden } from "../../../../shared/api/validation/field_errors.ts";
import { childPath, indexPath, keyPath } from "./field_paths.ts";

/** The deepest schema nesting accepted (schema nodes from the root). */
export const MAX_SCHEMA_DEPTH = 256;

/**
 * The most `x-kubernetes-validations` rules one schema may declare: every rule is compiled on
 * each write of the CRD, so the bound keeps that work short (real CRDs declare far fewer).
 */
export const MAX_SCHEMA_RULES = 5_000;

function childrenOf(s: JSONSchemaProps, path: string): [unknown, string][] {
  const out: [unknown, string][] = [];
  const maps = ["properties", "patternProperties", "definitions", "dependencies"] as const;
  for (const m of maps) {
    const v = s[m];
    if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) out.push([x, keyPath(childPath(path, m), k)]);
    }
  }
  for (const one of ["additionalProperties", "additionalItems", "not", "items"] as const) {
    const v = s[one];
    if (Array.isArray(v)) v.forEach((x, i) => out.push([x, indexPath(childPath(path, one), i)]));
    else if (v && typeof v === "object") out.push([v, childPath(path, one)]);
  }
  for (const list of ["allOf", "anyOf", "oneOf"] as const) {
    s[list]?.forEach((x, i) => out.push([x, indexPath(childPath(path, list), i)]));
  }
  return out;
}

/**
 * A Forbidden error at the first node nested deeper than the limit, or at the root when the
 * schema declares too many rules; measured without recursion.
 */
export function validateSchemaLimits(schema: JSONSchemaProps, path: string): FieldError[] {
  const stack: [unknown, string, number][] = [[schema, path, 1]];
  let rules = 0;
  while (stack.length) {
    const [s, p, d] = stack.pop()!;
    if (!s || typeof s !== "object" || Array.isArray(s)) continue;
    if (d > MAX_SCHEMA_DEPTH) {
      return [forbidden(p, `must not be nested more than ${MAX_SCHEMA_DEPTH} levels deep`)];
    }
    const xv = (s as JSONSchemaProps)["x-kubernetes-validations"];
    if (Array.isArray(xv)) rules += xv.length;
    for (const [c, cp] of childrenOf(s as JSONSchemaProps, p)) stack.push([c, cp, d + 1]);
  }
  if (rules > MAX_SCHEMA_RULES) {
    return [forbidden(
      path,
      `must not declare more than ${MAX_SCHEMA_RULES} x-kubernetes-validations rules, but declares ${rules}`,
    )];
  }
  return [];
}
