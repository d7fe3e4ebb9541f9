/**
 * ValidateCustomResourceSelectableFields: each selectable field names, in dot notation without
 * array indexes, a string, boolean or integer field of the version's schema outside metadata; at
 * most eight distinct fields.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { duplicate, invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../../shared/json/is_object.ts";

/** kube's MaxSelectableFields. */
export const MAX_SELECTABLE_FIELDS = 8;

/** The schema at a dot path (`.spec.color`), or an error text. */
function resolvePath(schema: JSONSchemaProps, path: string): JSONSchemaProps | string {
  if (!path.startsWith(".")) return `expected [.] at position 0 of ${JSON.stringify(path)}`;
  let node: JSONSchemaProps | undefined = schema;
  for (const part of path.slice(1).split(".")) {
    if (part === "" || /[\[\]]/.test(part)) return "array notation is not allowed";
    const next: JSONSchemaProps | undefined = node?.properties?.[part] ??
      (isObject(node?.additionalProperties) ? node.additionalProperties : undefined);
    if (!next) return `does not refer to a valid field`;
    node = next;
  }
  return node ?? "does not refer to a valid field";
}

/** The errors of a version's selectable fields against its schema. */
export function validateSelectableFields(
  fields: unknown,
  schema: JSONSchemaProps | undefined,
  path: string,
  topLevel = false,
): FieldError[] {
  const list = Array.isArray(fields) ? fields : [];
  if (list.length === 0) return [];
  if (!schema) {
    // Both messages are kube's, the per-version one as worded there.
    const detail = topLevel
      ? "selectableFields may only be set when validations.schema is included"
      : "selectableFields may only be set when version.schema.openAPIV3Schema is not included";
    return [invalid(path, "", detail)];
  }
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jsonPath = isObject(f) && typeof f.jsonPath === "string" ? f.jsonPath : "";
    if (jsonPath === "") {
      errs.push(required(p));
      return;
    }
    const found = resolvePath(schema, jsonPath);
    if (typeof found === "string") {
      errs.push(invalid(p, jsonPath, `is an invalid path: ${found}`));
      return;
    }
    if (jsonPath.split(".")[1] === "metadata") {
      errs.push(invalid(p, jsonPath, "must not point to fields in metadata"));
    }
    if (!["string", "boolean", "integer"].includes(found.type ?? "")) {
      errs.push(
        invalid(
          p,
          jsonPath,
          "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
        ),
      );
    }
    if (seen.has(jsonPath)) errs.push(duplicate(p, jsonPath));
    else seen.add(jsonPath);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) {
    errs.push({
      type: "FieldValueTooMany",
      field: path,
      value: seen.size,
      detail: `${seen.size}: must have at most ${MAX_SELECTABLE_FIELDS} items`,
    });
  }
  return errs;
}
