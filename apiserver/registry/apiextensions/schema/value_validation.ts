/**
 * OpenAPI validation of a custom resource (or a default) against a structural schema, as
 * apiextensions-apiserver runs go-openapi's validator: every error at once, go-openapi's
 * messages and apiextensions' mapping to field errors. With an old value, errors in parts
 * that did not change are ratcheted away (CRDValidationRatcheting).
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import {
  checkEnum,
  checkNumber,
  checkString,
  checkType,
  inBody,
  tooMany,
} from "./scalar_checks.ts";
import type { At } from "./scalar_checks.ts";
import { validateJunctors } from "./value_junctors.ts";
import { correlator } from "./list_values.ts";
import { additionalOf, canonicalJson, isObject, itemsOf, jsonEqual } from "./schema_nodes.ts";

/** An old value at the same place, when there is one (for ratcheting). */
export type Old = { value: unknown } | undefined;

/** Validates `v` against `s`; `base` prefixes error fields (e.g. a default's path). */
export function validateValue(
  v: unknown,
  s: JSONSchemaProps,
  base: string,
  old: Old = undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  walk(v, s, { name: "", field: base, root: base }, old, errs);
  return errs;
}

function childAt(at: At, key: string, index = false): At {
  const name = index ? `${at.name}[${key}]` : at.name === "" ? key : `${at.name}.${key}`;
  // kube: fldPath.Child(<the validator's name>), so the error field follows the name
  return { root: at.root, name, field: at.root === "" ? name : `${at.root}.${name}` };
}

/** Validates one node (the junctors re-validate against their sub-schemas through it). */
function walk(v: unknown, s: JSONSchemaProps, at: At, old: Old, errs: FieldError[]): void {
  if (old !== undefined) {
    // ratcheting: errors inside a value equal to its old value are dropped
    const own: FieldError[] = [];
    walkNode(v, s, at, old, own);
    if (own.length > 0 && !jsonEqual(v, old.value)) errs.push(...own);
    return;
  }
  walkNode(v, s, at, old, errs);
}

function walkNode(v: unknown, s: JSONSchemaProps, at: At, old: Old, errs: FieldError[]): void {
  if (v === null) {
    if (s.nullable || (!s.type && !s["x-kubernetes-int-or-string"])) return;
  }
  if (!checkType(v, s, at, errs)) return;
  checkEnum(v, s, at, errs);
  if (typeof v === "number") checkNumber(v, s, at, errs);
  else if (typeof v === "string") checkString(v, s, at, errs);
  else if (Array.isArray(v)) walkArray(v, s, at, old, errs);
  else if (isObject(v)) walkObject(v, s, at, old, errs);
  validateJunctors(v, s, at, errs, (x, n, a, e) => walk(x, n, a, undefined, e));
}

function walkArray(v: unknown[], s: JSONSchemaProps, at: At, old: Old, errs: FieldError[]): void {
  if (typeof s.maxItems === "number" && v.length > s.maxItems) {
    errs.push(tooMany(at.field, v.length, s.maxItems));
  }
  if (typeof s.minItems === "number" && v.length < s.minItems) {
    errs.push(invalid(at.field, v, `${inBody(at)} should have at least ${s.minItems} items`));
  }
  if (s.uniqueItems && new Set(v.map(canonicalJson)).size !== v.length) {
    errs.push(invalid(at.field, v, `${inBody(at)} shouldn't contain duplicates`));
  }
  const items = itemsOf(s);
  if (!items) return;
  const find = correlator(s, old && Array.isArray(old.value) ? old.value : undefined);
  v.forEach((x, i) => {
    const o = find(x);
    walk(x, items, childAt(at, String(i), true), o, errs);
  });
}

function walkObject(
  v: Record<string, unknown>,
  s: JSONSchemaProps,
  at: At,
  old: Old,
  errs: FieldError[],
): void {
  const n = Object.keys(v).length;
  if (typeof s.maxProperties === "number" && n > s.maxProperties) {
    errs.push(tooMany(at.field, n, s.maxProperties));
  }
  if (typeof s.minProperties === "number" && n < s.minProperties) {
    errs.push(
      invalid(at.field, v, `${inBody(at)} should have at least ${s.minProperties} properties`),
    );
  }
  for (const k of s.required ?? []) {
    if (!Object.hasOwn(v, k) || v[k] === undefined) {
      errs.push(required(childAt(at, k).field, ""));
    }
  }
  const props = s.properties ?? {};
  const ap = additionalOf(s);
  const oldObj = old && isObject(old.value) ? old.value : undefined;
  for (const [k, x] of Object.entries(v)) {
    const ps = Object.hasOwn(props, k) ? props[k] : ap;
    if (!ps || x === undefined) continue;
    const o: Old = oldObj && Object.hasOwn(oldObj, k) ? { value: oldObj[k] } : undefined;
    walk(x, ps, childAt(at, k), o, errs);
  }
}
