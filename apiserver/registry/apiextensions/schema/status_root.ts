/**
 * With the status subresource, the root of a schema may only use the fields that survive
 * extracting `properties.status` (apiextensions validation.go, allowedAtRootSchema).
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { childPath } from "./field_paths.ts";

/** Wire name to the Go field name kube prints in its message. */
const ALLOWED: [string, string][] = [
  ["description", "Description"],
  ["type", "Type"],
  ["format", "Format"],
  ["title", "Title"],
  ["maximum", "Maximum"],
  ["exclusiveMaximum", "ExclusiveMaximum"],
  ["minimum", "Minimum"],
  ["exclusiveMinimum", "ExclusiveMinimum"],
  ["maxLength", "MaxLength"],
  ["minLength", "MinLength"],
  ["pattern", "Pattern"],
  ["maxItems", "MaxItems"],
  ["minItems", "MinItems"],
  ["uniqueItems", "UniqueItems"],
  ["multipleOf", "MultipleOf"],
  ["required", "Required"],
  ["items", "Items"],
  ["properties", "Properties"],
  ["externalDocs", "ExternalDocs"],
  ["example", "Example"],
  ["x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields"],
  ["x-kubernetes-validations", "XValidations"],
];
const ALLOWED_NAMES = new Set(ALLOWED.map(([w]) => w));

/** Go's zero value of the field (numbers are pointers in JSONSchemaProps: set is non-zero). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v as object).length === 0;
}

/** The root-schema errors of a version with the status subresource. */
export function validateStatusRoot(schema: JSONSchemaProps, path: string): FieldError[] {
  for (const [k, v] of Object.entries(schema)) {
    if (isZero(v)) continue;
    if (k === "type") {
      if (v !== "object") {
        return [invalid(
          childPath(path, "type"),
          v,
          `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
        )];
      }
      continue;
    }
    if (!ALLOWED_NAMES.has(k)) {
      return [invalid(
        path,
        schema,
        `only [${
          ALLOWED.map(([, g]) => g).join(" ")
        }] fields are allowed at the root of the schema if the status subresource is enabled`,
      )];
    }
  }
  return [];
}
