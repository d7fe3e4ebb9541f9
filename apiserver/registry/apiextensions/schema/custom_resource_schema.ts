/**
 * The contract between custom resource serving and the structural schema engine: checking a
 * CRD version's schema when the CRD is written, and compiling it into what every write of an
 * instance goes through (prune, default, validate), as apiextensions-apiserver 1.32 does.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { forbidden, invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { CelRuleValidator } from "./cel_validation.ts";
import { validateDefaults } from "./default_checks.ts";
import { applyDefaultsTo, pruneNonNullableNulls } from "./defaults.ts";
import { validateEmbeddedResources } from "./embedded.ts";
import { childPath } from "./field_paths.ts";
import { validateSchemaLimits } from "./limits.ts";
import { validateSchemaShape } from "./schema_shape.ts";
import { validateListSetsAndMaps } from "./list_values.ts";
import { pruneValue } from "./prune.ts";
import { isExpressionCostError, ratchetSchemaErrors } from "./schema_ratcheting.ts";
import { validateRuleSites } from "./rule_checks.ts";
import { validateSchemaNodes } from "./schema_rules.ts";
import { isObject, jsonEqual } from "./schema_nodes.ts";
import { validateStructural } from "./structural.ts";
import { validateStatusRoot } from "./status_root.ts";
import { validateValue } from "./value_validation.ts";

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
  schema: JSONSchemaProps,
  path: string,
  opts: CrdSchemaCheckOptions = {},
): FieldError[] {
  if (!isObject(schema)) return [required(path, "")];
  const shape = validateSchemaShape(schema, path);
  if (shape.length) return shape;
  const deep = validateSchemaLimits(schema, path);
  if (deep.length) return deep;
  const hasStatus = opts.hasStatus === true;
  const old = opts.oldSchema;
  if (
    !old || !isObject(old) || validateSchemaShape(old, path).length ||
    validateSchemaLimits(old, path).length
  ) {
    return schemaErrors(schema, path, hasStatus, true, true);
  }
  // kube does not tighten validation of persisted data: a non-structural old schema lifts the
  // structural requirement, and rules the old schema already broke are not enforced
  const structuralOld = validateStructural(old, path).length === 0;
  let errs = schemaErrors(schema, path, hasStatus, structuralOld, true);
  // an unchanged schema keeps its rules even if their estimates grew (suppressPerExpressionCost)
  if (jsonEqual(schema, old)) errs = errs.filter((e) => !isExpressionCostError(e));
  return ratchetSchemaErrors(errs, schemaErrors(old, path, hasStatus, structuralOld, false));
}

function schemaErrors(
  schema: JSONSchemaProps,
  path: string,
  hasStatus: boolean,
  requireStructural: boolean,
  withCel: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  if (hasStatus) errs.push(...validateStatusRoot(schema, path));
  if (schema.nullable) {
    errs.push(forbidden(childPath(path, "nullable"), "nullable cannot be true at the root"));
  }
  let structural: FieldError[] = [];
  if (requireStructural) {
    structural = validateStructural(schema, path);
    if (structural.length === 0) structural = validateDefaults(schema, path);
    errs.push(...structural);
  }
  const nodes = validateSchemaNodes(schema, path);
  errs.push(...nodes.errors);
  if (withCel && requireStructural && structural.length === 0 && nodes.errors.length === 0) {
    errs.push(...validateRuleSites(nodes.sites, path));
  }
  return errs;
}

/** The compiled schema of one version: every write of an instance goes through it. */
export interface CustomResourceSchema {
  /**
   * Removes the fields the schema does not declare (unless `x-kubernetes-preserve-unknown-fields`)
   * from `obj`, in place; returns their field paths as Kubernetes' fieldValidation reports them
   * (`spec.foo`, `spec.list[0].bar`).
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

const BLOCKING = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

/** Runs `f`; an object nested too deep to walk is reported, not thrown. */
function guarded<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RangeError) return fallback;
    throw e;
  }
}

function validateObject(
  schema: JSONSchemaProps,
  cel: CelRuleValidator,
  obj: KubeObject,
  old?: KubeObject,
): FieldError[] {
  const o = old === undefined ? undefined : { value: old };
  const errs = validateValue(obj, schema, "", o);
  errs.push(...validateEmbeddedResources(obj, schema));
  errs.push(...validateListSetsAndMaps(obj, schema, "", o));
  if (errs.some((e) => BLOCKING.has(e.type))) {
    errs.push(invalid(
      "<nil>",
      null,
      "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    ));
    return errs;
  }
  errs.push(...cel.validate(obj, old, old !== undefined));
  return errs;
}

/** Compiles a version's schema (absent: the object is kept as is). */
export function compileCustomResourceSchema(
  schema: JSONSchemaProps | undefined,
): CustomResourceSchema {
  if (!schema || !isObject(schema)) {
    return { prune: () => [], applyDefaults: () => {}, validate: () => [] };
  }
  const cel = new CelRuleValidator(schema);
  const tooDeep = [invalid("<nil>", "", "the object is nested too deeply to be validated")];
  return {
    prune: (obj) => guarded(() => pruneValue(obj, schema, true), []),
    applyDefaults: (obj) =>
      guarded(() => {
        applyDefaultsTo(obj, schema);
        pruneNonNullableNulls(obj, schema);
      }, undefined),
    validate: (obj, old) => guarded(() => validateObject(schema, cel, obj, old), tooDeep),
  };
}
