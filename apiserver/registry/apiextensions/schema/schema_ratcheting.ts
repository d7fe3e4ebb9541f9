/**
 * Ratcheting of CRD-write rules on update (apiextensions validation.go's options computed from
 * the old CRD): a rule the old schema already broke is not enforced on the new one — invalid
 * property types, non-atomic items of sets, unpruned defaults and list-map keys that are
 * neither required nor defaulted (or nullable set/map items).
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";

type Category = (e: FieldError) => boolean;

/**
 * A rule's or messageExpression's own estimated cost over the limit, which kube does not
 * report for a version whose schema did not change (suppressPerExpressionCost).
 */
export function isExpressionCostError(e: FieldError): boolean {
  return e.type === "FieldValueForbidden" &&
    (e.detail.startsWith("estimated rule cost exceeds budget") ||
      e.detail.startsWith("estimated messageExpression cost exceeds budget"));
}

const CATEGORIES: Category[] = [
  (e) => e.type === "FieldValueNotSupported" && e.field.endsWith(".type"),
  (e) => e.detail === "must be atomic as item of a list with x-kubernetes-list-type=set",
  (e) => e.detail === "must not have unknown fields",
  (e) =>
    e.detail.startsWith("this property is in x-kubernetes-list-map-keys, so it") ||
    e.detail.startsWith("cannot be nullable when x-kubernetes-list-type is"),
];

/** `errs` without the categories `oldErrs` already had. */
export function ratchetSchemaErrors(errs: FieldError[], oldErrs: FieldError[]): FieldError[] {
  const lifted = CATEGORIES.filter((c) => oldErrs.some(c));
  if (lifted.length === 0) return errs;
  return errs.filter((e) => !lifted.some((c) => c(e)));
}
