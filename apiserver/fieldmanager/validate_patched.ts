/**
 * Field validation for patches: the patched object of a JSON, merge or strategic merge patch is
 * validated like a create or update body; an apply configuration is checked for unknown and
 * duplicated fields only (it is a partial object, so required fields may be missing).
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import { validateFields } from "../../shared/api/schema/validate_fields.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ResourceContext } from "../http/context.ts";
import { applyFieldValidation, type FieldValidationDirective } from "../http/field_validation.ts";
import { warningHeader } from "../http/respond.ts";

/** The request's fieldValidation directive (Warn by default). */
export function fieldValidationDirective(q: URLSearchParams): FieldValidationDirective {
  const v = q.get("fieldValidation") ?? "";
  return v === "Ignore" || v === "Strict" ? v : "Warn";
}

/** Validates a patched object in place (unknown fields dropped), adding warnings to ctx. */
export function validatePatchedObject(ctx: ResourceContext, obj: KubeObject): void {
  const def = ctx.store.def;
  const model = builtinSchemaModel();
  const warnings = applyFieldValidation({
    model,
    type: model.kind(def.group, def.version, def.kind),
    value: obj,
    duplicates: [],
    directive: fieldValidationDirective(ctx.url.searchParams),
    kind: { group: def.group, kind: def.kind },
  });
  for (const w of warnings) ctx.warnings.push(warningHeader(w));
}

/**
 * Checks an apply configuration for unknown fields (removed) and the decoder's duplicate
 * findings, per the directive: warnings, a 400 (Strict), or nothing (Ignore).
 */
export function validateApplyConfig(
  ctx: ResourceContext,
  config: Record<string, unknown>,
  duplicates: readonly string[],
): void {
  const def = ctx.store.def;
  const model = builtinSchemaModel();
  const type = model.kind(def.group, def.version, def.kind);
  const unknown = type ? validateFields(model, type, config).unknown : [];
  const directive = fieldValidationDirective(ctx.url.searchParams);
  if (directive === "Ignore") return;
  const findings = [...unknown.map((p) => `unknown field ${JSON.stringify(p)}`), ...duplicates];
  if (findings.length === 0) return;
  if (directive === "Strict") {
    throw StatusError.badRequest(`strict decoding error: ${findings.join(", ")}`);
  }
  for (const f of findings) ctx.warnings.push(warningHeader(f));
}
