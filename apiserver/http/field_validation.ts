/**
 * Server-side field validation of request bodies (`fieldValidation=Ignore|Warn|Strict`):
 * unknown and duplicated fields are dropped and reported as warnings (Warn), rejected with
 * 400 listing all of them (Strict) or ignored (Ignore); wrong types and missing required fields
 * are always 422 Invalid, and win over the strict error.
 *
 * @module
 */
import type { SchemaModel, TypeSchema } from "../../shared/api/schema/model.ts";
import { validateFields } from "../../shared/api/schema/validate_fields.ts";
import { StatusError } from "../../shared/errors/status_error.ts";

/** The fieldValidation directive. */
export type FieldValidationDirective = "Ignore" | "Warn" | "Strict";

/** Input of {@link applyFieldValidation}. */
export interface FieldValidationInput {
  model: SchemaModel;
  /** The body's type; without one only duplicates are checked. */
  type?: TypeSchema;
  /** The decoded body (modified in place: unknown fields and nulls removed). */
  value: Record<string, unknown>;
  /** Duplicate-field findings of the decoder, already worded. */
  duplicates: readonly string[];
  directive: FieldValidationDirective;
  /** The kind, for 422 errors. */
  kind: { group: string; kind: string };
  /**
   * Check the schema's required fields (default true). Requests to virtual kinds (reviews,
   * TokenRequest) skip it: Kubernetes defaults what they omit.
   */
  required?: boolean;
  /** Unknown fields found outside the schema model (custom resources' pruning), as paths. */
  pruned?: readonly string[];
}

/**
 * Validates a body. Returns the warning texts to send (Warn); throws 422 for type errors and
 * missing required fields, or 400 (`strict decoding error: …`) under Strict.
 */
export function applyFieldValidation(input: FieldValidationInput): string[] {
  const { model, type, value, directive } = input;
  const result = type
    ? validateFields(model, type, value, { required: input.required ?? true })
    : { unknown: [], errors: [] };
  if (result.errors.length > 0) {
    const meta = value.metadata as { name?: string; generateName?: string } | undefined;
    throw StatusError.invalid(input.kind, meta?.name ?? meta?.generateName ?? "", result.errors);
  }
  if (directive === "Ignore") return [];
  const findings = [
    ...[...result.unknown, ...input.pruned ?? []].map((p) => `unknown field ${JSON.stringify(p)}`),
    ...input.duplicates,
  ];
  if (findings.length === 0) return [];
  if (directive === "Strict") {
    throw StatusError.badRequest(`strict decoding error: ${findings.join(", ")}`);
  }
  return findings;
}
