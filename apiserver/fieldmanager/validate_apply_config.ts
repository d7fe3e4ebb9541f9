/**
 * validateApplyConfig: field validation of a server-side apply configuration. It is a partial
 * object, so only unknown and duplicated fields are checked (required fields may be missing).
 *
 * @module
 */
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import { validateFields } from "../../shared/api/schema/validate_fields.ts";
import { StatusError } from "../../shared/errors/status_error.ts";

/** The request's fieldValidation directive. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/**
 * Checks an apply configuration of `kind` for unknown fields (removed from `config`) and the
 * decoder's duplicate findings, per the directive: returns the warning texts (Warn), throws a
 * 400 listing them all (Strict), or returns none (Ignore).
 */
export function validateApplyConfig(
  kind: { group: string; version: string; kind: string },
  config: Record<string, unknown>,
  duplicates: readonly string[],
  directive: FieldValidation,
): string[] {
  const model = builtinSchemaModel();
  const type = model.kind(kind.group, kind.version, kind.kind);
  const unknown = type ? validateFields(model, type, config).unknown : [];
  if (directive === "Ignore") return [];
  const findings = [...unknown.map((p) => `unknown field ${JSON.stringify(p)}`), ...duplicates];
  if (findings.length > 0 && directive === "Strict") {
    throw StatusError.badRequest(`strict decoding error: ${findings.join(", ")}`);
  }
  return findings;
}
