/**
 * The CRD-write checks of `default` values (apiextensions defaulting/validation.go): each
 * default must be pruned (no unknown fields; not checked inside resource metadata), hold a
 * valid embedded resource where one is declared, be valid against its node's schema and pass
 * its node's CEL rules (with `oldSelf` bound to the default itself, then without it).
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { CelRuleValidator } from "./cel_validation.ts";
import { validateEmbeddedResources } from "./embedded.ts";
import { childPath, keyPath } from "./field_paths.ts";
import { pruneValue } from "./prune.ts";
import { cloneJson, itemsOf, jsonEqual } from "./schema_nodes.ts";
import { validateValue } from "./value_validation.ts";

const META = new Set(["metadata", "apiVersion", "kind"]);

/** Every error of the defaults in `root` (a structurally valid schema) at `path`. */
export function validateDefaults(root: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = { ...root, "x-kubernetes-embedded-resource": true };
  walk(r, path, r, false, errs);
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
  if (s.default !== undefined && s.default !== null) {
    errs.push(...checkDefault(s, path, s === rr, meta));
  }
  const items = itemsOf(s);
  if (items) walk(items, childPath(path, "items"), rr, meta, errs);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const sub = meta || (s["x-kubernetes-embedded-resource"] === true && META.has(k));
    walk(p, keyPath(childPath(path, "properties"), k), rr, sub, errs);
  }
}

function checkDefault(
  s: JSONSchemaProps,
  path: string,
  isRoot: boolean,
  insideMeta: boolean,
): FieldError[] {
  const dp = childPath(path, "default");
  const errs: FieldError[] = [];
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (!insideMeta) {
    const pruned = cloneJson(s.default);
    pruneValue(pruned, s, embedded);
    if (!jsonEqual(pruned, s.default)) {
      errs.push(invalid(dp, s.default, "must not have unknown fields"));
    }
    const meta = validateEmbeddedResources(s.default, s, dp, embedded);
    if (meta.length) return [...errs, ...meta];
  }
  const value = validateValue(s.default, s, dp);
  if (value.length) return [...errs, ...value];
  const cel = new CelRuleValidator(s, isRoot);
  const withOld = cel.validate(s.default, s.default, false, undefined, dp);
  if (withOld.length) return [...errs, ...withOld];
  return [...errs, ...cel.validate(s.default, undefined, false, undefined, dp)];
}
