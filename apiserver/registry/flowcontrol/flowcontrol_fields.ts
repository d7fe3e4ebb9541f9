/**
 * Helpers shared by the flowcontrol kinds: readers that tolerate any JSON, the status
 * conditions' rules, and the comparison of a mandatory object's spec with its fixed value
 * (semantic: unset, false, empty and null fields are alike, as Go's zero values are).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../shared/errors/status_error.ts";
import { duplicate, invalid, required } from "../../../shared/api/validation/field_errors.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { isObject } from "../../../shared/json/is_object.ts";

/** A plain object, or `{}`. */
export function objOf(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}

/** The plain objects of a list, or `[]`. */
export function listOf(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.map(objOf) : [];
}

/** Conditions need a type, unique within the list. */
export function validateConditions(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  listOf(objOf(obj.status).conditions).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    if (seen.has(c.type)) errs.push(duplicate(`${path}.type`, c.type));
    seen.add(c.type);
    if (!c.type) errs.push(required(`${path}.type`, "must not be empty"));
  });
  return errs;
}

/** The value with Go's zero values (null, false, "", []) dropped, for semantic comparison. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined || x === false || x === "") continue;
    if (Array.isArray(x) && x.length === 0) continue;
    out[k] = canonical(x);
  }
  return out;
}

/**
 * The error when a mandatory object's spec differs from its fixed value; `exemptAllowed` lets
 * the `exempt` priority level's `spec.exempt` differ, as Kubernetes does.
 */
export function mandatorySpecProblem(
  name: string,
  spec: Record<string, unknown>,
  fixed: Record<string, unknown>,
  exemptAllowed: boolean,
): FieldError[] {
  const have = exemptAllowed ? { ...spec, exempt: fixed.exempt } : spec;
  if (deepEqual(canonical(have), canonical(fixed))) return [];
  const detail = exemptAllowed
    ? `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`
    : `spec of '${name}' must equal the fixed value`;
  return [invalid("spec", spec, detail)];
}
