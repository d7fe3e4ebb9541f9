/**
 * The field error constructors (apimachinery's `field.Required`, `field.Invalid`, ...), the one
 * place field errors are built, so that validation everywhere reads like Kubernetes' own.
 *
 * @module
 */
import type { FieldError } from "../../errors/status_error.ts";
import { goQuote } from "./go_quote.ts";

/** `<field>: Required value[: <detail>]`. */
export function required(field: string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field, detail };
}

/** `<field>: Invalid value: <value>: <detail>`. */
export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, value, detail };
}

/**
 * `<field>: Unsupported value: <value>: supported values: "a", "b"`; the supported values are
 * quoted as Go's `strconv.Quote` does, and an empty list gives no detail, as in Kubernetes.
 */
export function notSupported(
  field: string,
  value: unknown,
  supported: readonly string[],
): FieldError {
  const detail = supported.length > 0
    ? `supported values: ${supported.map((s) => goQuote(s)).join(", ")}`
    : "";
  return { type: "FieldValueNotSupported", field, value, detail };
}

/** `<field>: Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, detail };
}

/** `<field>: Duplicate value: <value>`. */
export function duplicate(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, value, detail: "" };
}

/** `<field>: Invalid value: <value>: <detail>` with the type-invalid reason. */
export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueTypeInvalid", field, value, detail };
}

/** `<field>: Too long: <detail>`. */
export function tooLong(field: string, value: unknown, detail: string): FieldError {
  return value === undefined
    ? { type: "FieldValueTooLong", field, detail }
    : { type: "FieldValueTooLong", field, value, detail };
}
