/**
 * The CRD-write rules of `x-kubernetes-list-type` and `x-kubernetes-list-map-keys`
 * (apiextensions validation.go): only on arrays, `map` lists need keys that name scalar item
 * properties, and `set` lists hold atomic items.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { childPath, keyPath } from "./field_paths.ts";
import { itemsOf } from "./schema_nodes.ts";

/** The list marker errors of node `s` at `path`. */
export function validateListMarkers(s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const lt = s["x-kubernetes-list-type"];
  const tp = childPath(path, "type");
  const items = itemsOf(s);
  if (lt !== undefined && s.type !== "array") {
    const msg = "must be array if x-kubernetes-list-type is specified";
    errs.push(s.type ? invalid(tp, s.type, msg) : required(tp, msg));
  } else if (lt === "set" && items) {
    errs.push(...setItems(items, childPath(path, "items")));
  }
  if (lt !== undefined && lt !== "atomic" && lt !== "set" && lt !== "map") {
    errs.push(
      notSupported(childPath(path, "x-kubernetes-list-type"), lt, ["atomic", "set", "map"]),
    );
  }
  const keys = s["x-kubernetes-list-map-keys"] ?? [];
  if (keys.length > 0) {
    const msg = "must be map if x-kubernetes-list-map-keys is non-empty";
    const lp = childPath(path, "x-kubernetes-list-type");
    if (lt === undefined) errs.push(required(lp, msg));
    else if (lt !== "map") errs.push(invalid(lp, lt, msg));
  }
  if (lt === "map") errs.push(...mapList(s, path, keys));
  return errs;
}

function setItems(items: JSONSchemaProps, ip: string): FieldError[] {
  const msg = "must be atomic as item of a list with x-kubernetes-list-type=set";
  if (items.type === "array") {
    const ilt = items["x-kubernetes-list-type"];
    if (ilt !== undefined && ilt !== "atomic") {
      return [invalid(childPath(ip, "x-kubernetes-list-type"), ilt, msg)];
    }
  } else if (items.type === "object" && items["x-kubernetes-map-type"] !== "atomic") {
    // kube reports the items' list type (unset) as the value
    return [
      invalid(childPath(ip, "x-kubernetes-map-type"), items["x-kubernetes-list-type"] ?? null, msg),
    ];
  }
  return [];
}

function mapList(s: JSONSchemaProps, path: string, keys: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const ip = childPath(path, "items");
  const kp = childPath(path, "x-kubernetes-list-map-keys");
  if (keys.length === 0) {
    errs.push(required(kp, "must not be empty if x-kubernetes-list-type is map"));
  }
  if (s.items === undefined) {
    errs.push(required(ip, "must have a schema if x-kubernetes-list-type is map"));
    return errs;
  }
  const items = itemsOf(s);
  if (!items) {
    errs.push(
      invalid(ip, s.items, "must only have a single schema if x-kubernetes-list-type is map"),
    );
    return errs;
  }
  if (items.type !== "object") {
    errs.push(invalid(
      childPath(ip, "type"),
      items.type ?? "",
      "must be object if parent array's x-kubernetes-list-type is map",
    ));
    return errs;
  }
  const seen = new Set<string>();
  for (const k of keys) {
    const p = items.properties?.[k];
    if (!p) {
      errs.push(invalid(kp, keys, "entries must all be names of item properties"));
    } else if (p.type === "array" || p.type === "object") {
      errs.push(invalid(
        childPath(keyPath(childPath(ip, "properties"), k), "type"),
        items.type,
        "must be a scalar type if parent array's x-kubernetes-list-type is map",
      ));
    }
    if (seen.has(k)) errs.push(invalid(kp, keys, "must not contain duplicate entries"));
    seen.add(k);
  }
  return errs;
}

/**
 * Items of `set` and `map` lists cannot be nullable, and the keys of a `map` list must be
 * required or defaulted and not nullable (kube's validateMapListKeysMapSet).
 */
export function validateMapListKeys(s: JSONSchemaProps, path: string): FieldError[] {
  const lt = s["x-kubernetes-list-type"];
  const items = itemsOf(s);
  if (!items || (lt !== "set" && lt !== "map")) return [];
  const errs: FieldError[] = [];
  const ip = childPath(path, "items");
  if (items.nullable) {
    errs.push(
      forbidden(
        childPath(ip, "nullable"),
        `cannot be nullable when x-kubernetes-list-type is ${lt}`,
      ),
    );
  }
  if (lt !== "map") return errs;
  const req = new Set(items.required ?? []);
  for (const k of s["x-kubernetes-list-map-keys"] ?? []) {
    const p = items.properties?.[k];
    if (!p) continue;
    const kp = keyPath(childPath(ip, "properties"), k);
    if (!req.has(k) && p.default === undefined) {
      errs.push(required(
        childPath(kp, "default"),
        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
      ));
    }
    if (p.nullable) {
      errs.push(forbidden(
        childPath(kp, "nullable"),
        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
      ));
    }
  }
  return errs;
}
