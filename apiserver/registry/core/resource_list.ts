/** ResourceList fields (`map<resource name, quantity>`): validation as kube's. */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { tryParseQuantity } from "../../../shared/api/quantity.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { invalid } from "../../../shared/api/validation/field_errors.ts";

/** Validates a resource list: quantities that parse and are not negative. */
export function validateResourceList(field: string, v: unknown): FieldError[] {
  if (v === undefined || v === null) return [];
  if (!isObject(v)) return [invalid(field, v, "must be an object")];
  const errs: FieldError[] = [];
  for (const [k, q] of Object.entries(v)) {
    const parsed = tryParseQuantity(String(q));
    if (!parsed) {
      errs.push(
        invalid(
          `${field}[${k}]`,
          q,
          "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
      );
    } else if (String(q).trim().startsWith("-") && parsed.toString() !== "0") {
      errs.push(invalid(`${field}[${k}]`, q, "must be greater than or equal to 0"));
    }
  }
  return errs;
}
