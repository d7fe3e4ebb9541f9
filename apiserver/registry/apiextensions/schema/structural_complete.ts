/**
 * Structural completeness (apiextensions-apiserver complete.go): every field or array that a
 * value validation (`allOf`/`anyOf`/`oneOf`/`not`) names must also be declared by the
 * structural part of the schema.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { required } from "../../../../shared/api/validation/field_errors.ts";
import { childPath, indexPath, keyPath } from "./field_paths.ts";
import { itemsOf } from "./schema_nodes.ts";

/** The completeness errors of the root `s` at `path`. */
export function validateCompleteness(s: JSONSchemaProps, path: string): FieldError[] {
  return junctors(s, s, path, path);
}

function junctors(
  v: JSONSchemaProps,
  s: JSONSchemaProps,
  sPath: string,
  vPath: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (v.not) errs.push(...nested(v.not, s, sPath, childPath(vPath, "not")));
  const lists = [["allOf", v.allOf], ["anyOf", v.anyOf], ["oneOf", v.oneOf]] as const;
  for (const [name, list] of lists) {
    list?.forEach((n, i) =>
      errs.push(...nested(n, s, sPath, indexPath(childPath(vPath, name), i)))
    );
  }
  return errs;
}

function nested(
  v: JSONSchemaProps,
  s: JSONSchemaProps | undefined,
  sPath: string,
  vPath: string,
): FieldError[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs = junctors(v, s, sPath, vPath);
  const vItems = itemsOf(v);
  if (vItems) {
    errs.push(...nested(vItems, itemsOf(s), childPath(sPath, "items"), childPath(vPath, "items")));
  }
  for (const [k, p] of Object.entries(v.properties ?? {})) {
    const sp = keyPath(childPath(sPath, "properties"), k);
    const vp = keyPath(childPath(vPath, "properties"), k);
    const sFld = s.properties?.[k];
    if (!sFld) errs.push(required(sp, `because it is defined in ${vp}`));
    else errs.push(...nested(p, sFld, sp, vp));
  }
  return errs;
}
