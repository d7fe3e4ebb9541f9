/**
 * The go-openapi value checks of one node, with its messages (`<name> in body should ...`):
 * type (and int-or-string), enum, number bounds, string length, pattern and format, item and
 * property counts. Errors are mapped to field errors as apiextensions-apiserver maps them.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  invalid,
  notSupported,
  tooLong,
  typeInvalid,
} from "../../../../shared/api/validation/field_errors.ts";
import { goQuote } from "../../../../shared/api/validation/go_quote.ts";
import { compileRe2, Re2SyntaxError } from "../../../cel/mod.ts";
import { matchesFormat } from "./formats.ts";
import { canonicalJson, isObject, jsonTypeName } from "./schema_nodes.ts";

/** Where a value sits: go-openapi's name (`spec.list.0`) and the error's field path. */
export interface At {
  name: string;
  field: string;
  /** The field path the validation started at (where composite errors are reported). */
  root: string;
}

/** go-openapi's `<name> in body` (just `in body` at the validated value's root). */
export function inBody(at: At): string {
  return at.name === "" ? "in body" : `${at.name} in body`;
}

const enums = new WeakMap<unknown[], { set: Set<string>; names: string[] }>();

function enumOf(values: unknown[]): { set: Set<string>; names: string[] } {
  let e = enums.get(values);
  if (!e) {
    e = {
      set: new Set(values.map(canonicalJson)),
      names: values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
    };
    enums.set(values, e);
  }
  return e;
}

/** The expected type names of `s` (`integer,string` for int-or-string), or undefined. */
function expectedType(s: JSONSchemaProps): string | undefined {
  // kube's validator replaces the type of an int-or-string node by [integer, string]
  if (s["x-kubernetes-int-or-string"]) return "integer,string";
  return s.type || undefined;
}

function typeMatches(t: string, v: unknown): boolean {
  switch (t) {
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "boolean":
      return typeof v === "boolean";
    case "integer,string":
      return typeof v === "string" || (typeof v === "number" && Number.isInteger(v));
  }
  return true;
}

/** Type check; returns false (with the error) when the value has the wrong type. */
export function checkType(v: unknown, s: JSONSchemaProps, at: At, errs: FieldError[]): boolean {
  const t = expectedType(s);
  if (t === undefined || typeMatches(t, v)) return true;
  const kind = jsonTypeName(v);
  errs.push(typeInvalid(
    at.field,
    v === null ? "null" : v,
    `${inBody(at)} must be of type ${t}: ${goQuote(kind)}`,
  ));
  return false;
}

/** Enum membership. */
export function checkEnum(v: unknown, s: JSONSchemaProps, at: At, errs: FieldError[]): void {
  if (!Array.isArray(s.enum) || s.enum.length === 0) return;
  const e = enumOf(s.enum);
  if (!e.set.has(canonicalJson(v))) errs.push(notSupported(at.field, v, e.names));
}

/** minimum/maximum (exclusive) and multipleOf. */
export function checkNumber(v: number, s: JSONSchemaProps, at: At, errs: FieldError[]): void {
  const body = `${inBody(at)}`;
  if (typeof s.minimum === "number") {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
      const rel = s.exclusiveMinimum ? "greater than" : "greater than or equal to";
      errs.push(invalid(at.field, v, `${body} should be ${rel} ${s.minimum}`));
    }
  }
  if (typeof s.maximum === "number") {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
      const rel = s.exclusiveMaximum ? "less than" : "less than or equal to";
      errs.push(invalid(at.field, v, `${body} should be ${rel} ${s.maximum}`));
    }
  }
  if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) {
      errs.push(invalid(at.field, v, `${body} should be a multiple of ${s.multipleOf}`));
    }
  }
}

/** minLength/maxLength (in characters), pattern (RE2) and format. */
export function checkString(v: string, s: JSONSchemaProps, at: At, errs: FieldError[]): void {
  const needsLength = typeof s.maxLength === "number" || typeof s.minLength === "number";
  const len = needsLength ? [...v].length : 0;
  if (typeof s.maxLength === "number" && len > s.maxLength) {
    const unit = s.maxLength === 1 ? "byte" : "bytes";
    errs.push(tooLong(at.field, undefined, `may not be more than ${s.maxLength} ${unit}`));
  }
  if (typeof s.minLength === "number" && len < s.minLength) {
    errs.push(
      invalid(at.field, v, `${inBody(at)} should be at least ${s.minLength} chars long`),
    );
  }
  if (typeof s.pattern === "string" && s.pattern !== "" && !patternMatches(s.pattern, v)) {
    errs.push(invalid(at.field, v, `${inBody(at)} should match '${s.pattern}'`));
  }
  if (typeof s.format === "string" && s.format !== "" && !matchesFormat(s.format, v)) {
    errs.push(
      typeInvalid(at.field, v, `${inBody(at)} must be of type ${s.format}: ${goQuote(v)}`),
    );
  }
}

function patternMatches(pattern: string, v: string): boolean {
  try {
    return compileRe2(pattern).test(v);
  } catch (e) {
    if (e instanceof Re2SyntaxError) return true;
    throw e;
  }
}

/** The `Too many` error of a list or map over its bound. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return {
    type: "FieldValueTooMany",
    field,
    value: actual,
    detail: `${actual}: must have at most ${max} ${max === 1 ? "item" : "items"}`,
  };
}
