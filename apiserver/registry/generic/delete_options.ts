/**
 * DeleteOptions as every delete reads them: their checks (422 Invalid) and the finalizer their
 * propagation policy asks for.
 *
 * @module
 */
import type { DeleteOptions } from "../../../shared/api/meta/v1/types.ts";
import { type FieldError, StatusError } from "../../../shared/errors/status_error.ts";

/** Rejects an unknown propagationPolicy, or one given together with orphanDependents. */
export function validateDeleteOptions(options: DeleteOptions): void {
  const policy = options.propagationPolicy;
  const errors: FieldError[] = [];
  if (policy !== undefined && !["Orphan", "Background", "Foreground"].includes(policy)) {
    errors.push({
      type: "FieldValueNotSupported",
      field: "propagationPolicy",
      detail: `supported values: "Foreground", "Background", "Orphan", "nil"`,
      value: policy,
    });
  }
  if (policy !== undefined && options.orphanDependents !== undefined) {
    errors.push({
      type: "FieldValueInvalid",
      field: "propagationPolicy",
      detail: "orphanDependents and deletionPropagation cannot be both set",
      value: policy,
    });
  }
  if (errors.length > 0) {
    throw StatusError.invalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", errors);
  }
}

/** The finalizer a delete's propagation policy adds: `orphan`, `foregroundDeletion` or none. */
export function finalizerOfPolicy(options: DeleteOptions): string | undefined {
  if (options.propagationPolicy === "Orphan" || options.orphanDependents === true) return "orphan";
  return options.propagationPolicy === "Foreground" ? "foregroundDeletion" : undefined;
}
