/**
 * The JSON shape of a schema, checked before anything walks it: every keyword holds the JSON
 * type JSONSchemaProps declares (Kubernetes rejects anything else when decoding the CRD), so
 * the later checks never meet a string where they expect a list. Iterative: no recursion.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { typeInvalid } from "../../../../shared/api/validation/field_errors.ts";
import { childPath, indexPath, keyPath } from "./field_paths.ts";
import { isObject } from "./schema_nodes.ts";

type Kind = "string" | "boolean" | "number" | "array" | "object";

const KINDS: Record<string, Kind> = {
  id: "string",
  $schema: "string",
  $ref: "string",
  description: "string",
  type: "string",
  format: "string",
  title: "string",
  pattern: "string",
  "x-kubernetes-list-type": "string",
  "x-kubernetes-map-type": "string",
  exclusiveMaximum: "boolean",
  exclusiveMinimum: "boolean",
  uniqueItems: "boolean",
  nullable: "boolean",
  "x-kubernetes-preserve-unknown-fields": "boolean",
  "x-kubernetes-embedded-resource": "boolean",
  "x-kubernetes-int-or-string": "boolean",
  maximum: "number",
  minimum: "number",
  maxLength: "number",
  minLength: "number",
  maxItems: "number",
  minItems: "number",
  maxProperties: "number",
  minProperties: "number",
  multipleOf: "number",
  enum: "array",
  required: "array",
  allOf: "array",
  oneOf: "array",
  anyOf: "array",
  "x-kubernetes-list-map-keys": "array",
  "x-kubernetes-validations": "array",
  not: "object",
  properties: "object",
  patternProperties: "object",
  definitions: "object",
  dependencies: "object",
  externalDocs: "object",
};

function kindOf(v: unknown): Kind | "null" {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v as Kind;
}

const MAX_SHAPE_ERRORS = 100;

/** Every keyword of every node holding the wrong JSON type (at most 100 errors). */
export function validateSchemaShape(schema: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const stack: [unknown, string][] = [[schema, path]];
  while (stack.length && errs.length < MAX_SHAPE_ERRORS) {
    const [s, p] = stack.pop()!;
    if (!isObject(s)) {
      errs.push(typeInvalid(p, s, "must be of type object"));
      continue;
    }
    for (const [k, v] of Object.entries(s)) {
      const want = KINDS[k];
      if (v === undefined || want === undefined || kindOf(v) === want) continue;
      errs.push(typeInvalid(childPath(p, k), v, `must be of type ${want}`));
    }
    pushChildren(s as JSONSchemaProps, p, stack, errs);
  }
  return errs;
}

function pushChildren(
  s: JSONSchemaProps,
  p: string,
  stack: [unknown, string][],
  errs: FieldError[],
): void {
  for (const m of ["properties", "patternProperties", "definitions"] as const) {
    if (isObject(s[m])) {
      for (const [k, x] of Object.entries(s[m]!)) stack.push([x, keyPath(childPath(p, m), k)]);
    }
  }
  for (const l of ["allOf", "anyOf", "oneOf"] as const) {
    if (Array.isArray(s[l])) {
      s[l]!.forEach((x, i) => stack.push([x, indexPath(childPath(p, l), i)]));
    }
  }
  if (isObject(s.not)) stack.push([s.not, childPath(p, "not")]);
  for (const k of ["items", "additionalProperties", "additionalItems"] as const) {
    const v = s[k];
    if (v === undefined || typeof v === "boolean") continue;
    if (Array.isArray(v) && k === "items") {
      v.forEach((x, i) => stack.push([x, indexPath(childPath(p, k), i)]));
    } else if (isObject(v)) stack.push([v, childPath(p, k)]);
    else errs.push(typeInvalid(childPath(p, k), v, "must be of type object"));
  }
  (Array.isArray(s["x-kubernetes-validations"]) ? s["x-kubernetes-validations"] : []).forEach(
    (r, i) => {
      const rp = indexPath(childPath(p, "x-kubernetes-validations"), i);
      if (!isObject(r)) errs.push(typeInvalid(rp, r, "must be of type object"));
      else if (r.rule !== undefined && typeof r.rule !== "string") {
        errs.push(typeInvalid(childPath(rp, "rule"), r.rule, "must be of type string"));
      }
    },
  );
}
