/** Small constructors for field errors, so strategies read like Kubernetes' validation. */
import type { FieldError } from "../../../shared/errors/status_error.ts";

/** `<field>: Required value`. */
export function required(field: string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field, detail };
}

/** `<field>: Invalid value: <value>: <detail>`. */
export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, value, detail };
}

/** `<field>: Unsupported value: <value>: supported values: ...`. */
export function notSupported(field: string, value: unknown, supported: string[]): FieldError {
  return {
    type: "FieldValueNotSupported",
    field,
    value,
    detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
  };
}

/** `<field>: Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, detail };
}

/** `<field>: Duplicate value: <value>`. */
export function duplicate(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, value, detail: "" };
}

/** Whether `v` is a plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Validates that `v`, if present, is a map of strings; returns the errors. */
export function stringMap(field: string, v: unknown): FieldError[] {
  if (v === undefined || v === null) return [];
  if (!isObject(v)) return [invalid(field, v, "must be an object of strings")];
  const errs: FieldError[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") errs.push(invalid(`${field}[${k}]`, x, "must be a string"));
  }
  return errs;
}

/**
 * Config map and secret keys (Kubernetes' IsConfigMapKey): `[-._a-zA-Z0-9]+`, at most 253
 * characters, and not `.`, `..` or starting with `..`; one error per problem.
 */
export function validateConfigKey(field: string, key: string): FieldError[] {
  const errs: FieldError[] = [];
  if (key.length > 253) errs.push(invalid(field, key, "must be no more than 253 characters"));
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(invalid(
      field,
      key,
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ));
  }
  if (key === ".") errs.push(invalid(field, key, "must not be '.'"));
  else if (key === "..") errs.push(invalid(field, key, "must not be '..'"));
  else if (key.startsWith("..")) errs.push(invalid(field, key, "must not start with '..'"));
  return errs;
}
