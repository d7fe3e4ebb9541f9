/**
 * The CRD-write checks of `default` values (apiextensions defaulting/validation.go): each
 * default outside metadata must be pruned (no unknown fields), valid against its node's
 * schema and pass its node's CEL rules (with `oldSelf` bound to the default itself).
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { CelRuleValidator } from "./cel_validation.ts";
import { childPath, keyPath } from "./field_paths.ts";
import { pruneValue } from "./prune.ts";
import { cloneJson, itemsOf, jsonEqual } from "./schema_nodes.ts";
import { validateValue } from "./value_validation.ts";

/** Every error of the defaults in `root` (a structurally valid schema) at `path`. */
export function validateDefaults(root: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  walk(root, path, root, false, errs);
  return errs;
}

function walk(
  s: JSONSchemaProps,
  path: string,
  resourceRoot: JSONSchemaProps,
  insideMeta: boolean,
  errs: FieldError[],
): void {
  let rr = resourceRoot, meta = insideMeta;
  if (s["x-kubernetes-embedded-resource"]) {
    rr = s;
    meta = false;
  }
  if (s.default !== undefined && !meta) errs.push(...checkDefault(s, path, s === rr));
  const items = itemsOf(s);
  if (items) walk(items, childPath(path, "items"), rr, meta, errs);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const subMeta = meta || (s === rr && k === "metadata");
    walk(p, keyPath(childPath(path, "properties"), k), rr, subMeta, errs);
  }
}

function checkDefault(s: JSONSchemaProps, path: string, isRoot: boolean): FieldError[] {
  const dp = childPath(path, "default");
  const pruned = cloneJson(s.default);
  pruneValue(pruned, s, s["x-kubernetes-embedded-resource"] === true && isRoot);
  if (!jsonEqual(pruned, s.default)) {
    return [invalid(dp, s.default, "must not have unknown fields")];
  }
  const errs = validateValue(s.default, s, dp);
  if (errs.length > 0) return errs;
  if (!s["x-kubernetes-validations"]?.length) return [];
  return new CelRuleValidator(s, isRoot).validate(s.default, s.default).map((e) => ({
    ...e,
    field: e.field === "<nil>"
      ? dp
      : e.field.startsWith("[")
      ? `${dp}${e.field}`
      : `${dp}.${e.field}`,
  }));
}
