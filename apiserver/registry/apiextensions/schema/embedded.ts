/**
 * Embedded resources (`x-kubernetes-embedded-resource`, apiextensions objectmeta/validation.go):
 * `apiVersion` and `kind` are required strings (a valid group/version, a kind that is a DNS
 * label in lower case) and `metadata` holds valid labels and annotations. The root object's
 * metadata is validated by the generic registry, not here.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { isDNS1035Label } from "../../../../shared/api/validation/identifiers.ts";
import {
  validateAnnotations,
  validateLabels,
} from "../../../../shared/api/validation/object_meta.ts";
import { childPath, indexPath, keyPath } from "./field_paths.ts";
import { additionalOf, isObject, itemsOf } from "./schema_nodes.ts";

/**
 * The embedded-resource errors in `v` (at field path `path`); the root itself is checked only
 * with `checkRoot` (a default of an embedded node; a resource's own root is checked elsewhere).
 */
export function validateEmbeddedResources(
  v: unknown,
  s: JSONSchemaProps | undefined,
  path = "",
  checkRoot = false,
): FieldError[] {
  const errs: FieldError[] = [];
  walk(v, s, path, !checkRoot, errs);
  return errs;
}

function walk(
  v: unknown,
  s: JSONSchemaProps | undefined,
  at: string,
  root: boolean,
  errs: FieldError[],
): void {
  if (!s) return;
  if (Array.isArray(v)) {
    const items = itemsOf(s);
    v.forEach((x, i) => walk(x, items, indexPath(at, i), false, errs));
    return;
  }
  if (!isObject(v)) return;
  if (s["x-kubernetes-embedded-resource"] && !root) errs.push(...embedded(v, at));
  const ap = additionalOf(s);
  for (const [k, x] of Object.entries(v)) {
    if (s.properties && Object.hasOwn(s.properties, k)) {
      walk(x, s.properties[k], childPath(at, k), false, errs);
    } else if (ap) walk(x, ap, keyPath(at, k), false, errs);
  }
}

function parseGroupVersionError(gv: string): string | undefined {
  const parts = gv.split("/");
  if (parts.length > 2 || (parts.length === 2 && (parts[0] === "" || parts[1] === ""))) {
    return `unexpected GroupVersion string: ${gv}`;
  }
  return undefined;
}

function embedded(x: Record<string, unknown>, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const av = childPath(at, "apiVersion"), kd = childPath(at, "kind");
  if (!Object.hasOwn(x, "apiVersion")) errs.push(required(av, "must not be empty"));
  else if (typeof x.apiVersion !== "string") {
    errs.push(invalid(av, x.apiVersion, "must be a string"));
  } else if (x.apiVersion === "") errs.push(invalid(av, "", "must not be empty"));
  else {
    const e = parseGroupVersionError(x.apiVersion);
    if (e) errs.push(invalid(av, x.apiVersion, e));
  }
  if (!Object.hasOwn(x, "kind")) errs.push(required(kd, "must not be empty"));
  else if (typeof x.kind !== "string") errs.push(invalid(kd, x.kind, "must be a string"));
  else if (x.kind === "") errs.push(invalid(kd, "", "must not be empty"));
  else {
    const bad = isDNS1035Label(x.kind.toLowerCase());
    if (bad.length) {
      errs.push(
        invalid(kd, x.kind, `may have mixed case, but should otherwise match: ${bad.join(",")}`),
      );
    }
  }
  const meta = x.metadata;
  if (isObject(meta)) {
    const mp = childPath(at, "metadata");
    errs.push(...validateLabels(meta.labels, childPath(mp, "labels")));
    errs.push(...validateAnnotations(meta.annotations, childPath(mp, "annotations")));
  }
  return errs;
}
