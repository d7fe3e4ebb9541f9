/**
 * The contract between custom resource serving and the structural schema engine: checking a
 * CRD version's schema when the CRD is written, and compiling it into what every write of an
 * instance goes through (prune, default, validate).
 *
 * PLACEHOLDER (session of 2026-11-25): the signatures are final; the bodies are the smallest
 * honest behaviour (no pruning, no defaults, no validation) until the schema engine lands.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";

/** What a CRD write's schema check needs beyond the schema. */
export interface CrdSchemaCheckOptions {
  /** The same version's schema before this update (rules that already existed are ratcheted). */
  oldSchema?: JSONSchemaProps;
  /** Whether the version has the status subresource (what `metadata`/`status` may hold). */
  hasStatus?: boolean;
}

/**
 * Every problem of one version's `openAPIV3Schema` as apiextensions-apiserver reports it: the
 * structural schema rules, `x-kubernetes-*` consistency, defaults (valid and pruned), limits,
 * and each `x-kubernetes-validations` rule compiled, type checked and cost estimated. `path` is
 * the field path of the schema, e.g. `spec.versions[0].schema.openAPIV3Schema`.
 */
export function validateCrdSchema(
  _schema: JSONSchemaProps,
  _path: string,
  _opts: CrdSchemaCheckOptions = {},
): FieldError[] {
  return [];
}

/** The compiled schema of one version: every write of an instance goes through it. */
export interface CustomResourceSchema {
  /**
   * Removes the fields the schema does not declare (unless `x-kubernetes-preserve-unknown-fields`)
   * from `obj`, in place; returns their field paths (e.g. `.spec.foo`), for `fieldValidation`.
   */
  prune(obj: KubeObject): string[];
  /** Applies the schema's defaults to `obj`, in place (on write and on read from storage). */
  applyDefaults(obj: KubeObject): void;
  /**
   * Validates against the OpenAPI schema, then runs every CEL rule (`oldSelf` bound on update,
   * runtime budgets enforced); returns every error with its field path.
   */
  validate(obj: KubeObject, old?: KubeObject): FieldError[];
}

/** Compiles a version's schema (absent: the object is kept as is). */
export function compileCustomResourceSchema(
  _schema: JSONSchemaProps | undefined,
): CustomResourceSchema {
  return { prune: () => [], applyDefaults: () => {}, validate: () => [] };
}
