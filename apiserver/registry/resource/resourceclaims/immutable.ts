/** ValidateImmutableField, as the resource.k8s.io kinds use it. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";

/** `value` at `field` is the old one, or an Invalid "field is immutable" error. */
export function immutable(field: string, value: unknown, old: unknown): FieldError[] {
  return deepEqual(value ?? null, old ?? null)
    ? []
    : [invalid(field, value ?? null, "field is immutable")];
}
