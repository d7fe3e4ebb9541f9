/**
 * The structural schema rules of apiextensions-apiserver (pkg/apiserver/schema validation.go
 * and complete.go): every node that holds data declares its type, the value validations under
 * `allOf`/`anyOf`/`oneOf`/`not` only restrict what the structural part already declares, the
 * root is an object whose `metadata` may only restrict `name` and `generateName`, and the
 * `x-kubernetes-*` extensions are consistent. Errors are sorted by their text, as Kubernetes does.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";
import { forbidden, invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { childPath, keyPath } from "./field_paths.ts";
import { additionalOf, itemsOf } from "./schema_nodes.ts";
import { validateNestedValueValidation } from "./structural_nested.ts";
import type { Level } from "./structural_nested.ts";
import { validateCompleteness } from "./structural_complete.ts";

/** Every structural-schema violation of `schema`, sorted as Kubernetes sorts them. */
export function validateStructural(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs = [
    ...invariants(schema, "root", path),
    ...validateCompleteness(schema, path),
  ];
  const keyed = errs.map((e) => [fieldErrorMessage(e), e] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map(([, e]) => e);
}

function invariants(s: JSONSchemaProps, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const items = itemsOf(s);
  if (s.type === "array" && !items) {
    errs.push(required(childPath(path, "items"), "must be specified"));
  }
  if (items) errs.push(...invariants(items, "item", childPath(path, "items")));
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    errs.push(...invariants(v, "field", keyPath(childPath(path, "properties"), k)));
  }
  if (s.additionalProperties !== undefined) {
    if (lvl === "root") {
      errs.push(forbidden(childPath(path, "additionalProperties"), "must not be used at the root"));
    }
    const ap = additionalOf(s);
    if (ap) errs.push(...invariants(ap, "field", childPath(path, "additionalProperties")));
  }
  errs.push(...extensionConflicts(s, path));
  errs.push(...valueValidations(s, lvl, path));
  errs.push(...typeRules(s, lvl, path));
  errs.push(...metaRules(s, lvl, path));
  return errs;
}

function extensionConflicts(s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ios = s["x-kubernetes-int-or-string"] === true;
  if (ios && s["x-kubernetes-preserve-unknown-fields"] === true) {
    errs.push(invalid(
      childPath(path, "x-kubernetes-preserve-unknown-fields"),
      true,
      "must be false if x-kubernetes-int-or-string is true",
    ));
  }
  if (ios && s["x-kubernetes-embedded-resource"] === true) {
    errs.push(invalid(
      childPath(path, "x-kubernetes-embedded-resource"),
      true,
      "must be false if x-kubernetes-int-or-string is true",
    ));
  }
  return errs;
}

function onlyType(n: JSONSchemaProps | undefined, type: string): boolean {
  if (!n) return false;
  const keys = Object.keys(n).filter((k) => (n as Record<string, unknown>)[k] !== undefined);
  return keys.length === 1 && n.type === type;
}

/** `anyOf: [{type: integer}, {type: string}]`, the int-or-string exception. */
export function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return anyOf?.length === 2 && onlyType(anyOf[0], "integer") && onlyType(anyOf[1], "string");
}

function valueValidations(s: JSONSchemaProps, lvl: Level, path: string): FieldError[] {
  return validateNestedValueValidation(
    s,
    isIntOrStringAnyOf(s.anyOf),
    (s.allOf?.length ?? 0) >= 1 && isIntOrStringAnyOf(s.allOf?.[0].anyOf),
    lvl,
    path,
    false,
  );
}

function typeRules(s: JSONSchemaProps, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type ?? "";
  const tp = childPath(path, "type");
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (embedded && type !== "object") {
    const msg = "must be object if x-kubernetes-embedded-resource is true";
    errs.push(type === "" ? required(tp, msg) : invalid(tp, type, msg));
  } else if (
    type === "" && s["x-kubernetes-int-or-string"] !== true &&
    s["x-kubernetes-preserve-unknown-fields"] !== true
  ) {
    const msg = lvl === "root"
      ? "must not be empty at the root"
      : lvl === "item"
      ? "must not be empty for specified array items"
      : "must not be empty for specified object fields";
    errs.push(required(tp, msg));
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push(forbidden(
      childPath(path, "additionalProperties"),
      "must not be used if x-kubernetes-embedded-resource is set",
    ));
  }
  if (lvl === "root" && type !== "" && type !== "object") {
    errs.push(invalid(tp, type, "must be object at the root"));
  }
  if (
    embedded && s["x-kubernetes-preserve-unknown-fields"] !== true &&
    Object.keys(s.properties ?? {}).length === 0
  ) {
    errs.push(required(
      childPath(path, "properties"),
      "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
    ));
  }
  return errs;
}

function metaRules(s: JSONSchemaProps, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const check = lvl === "root" || s["x-kubernetes-embedded-resource"] === true;
  const props = s.properties ?? {};
  const pp = childPath(path, "properties");
  for (const k of ["kind", "apiVersion"]) {
    if (check && props[k] && props[k].type !== "string") {
      errs.push(invalid(childPath(keyPath(pp, k), "type"), props[k].type ?? "", "must be string"));
    }
  }
  const meta = props.metadata;
  if (!meta) return errs;
  const mp = keyPath(pp, "metadata");
  if (check && meta.type !== "object") {
    errs.push(invalid(childPath(mp, "type"), meta.type ?? "", "must be object"));
  }
  if (lvl === "root" && !onlyNameAndGenerateName(meta)) {
    errs.push(forbidden(
      mp,
      "must not specify anything other than name and generateName, but metadata is implicitly specified",
    ));
  }
  return errs;
}

function onlyNameAndGenerateName(meta: JSONSchemaProps): boolean {
  for (const [k, v] of Object.entries(meta)) {
    if (v === undefined || k === "type" || k === "default") continue;
    if (k !== "properties") return false;
    const names = Object.keys(v as Record<string, unknown>);
    if (names.some((n) => n !== "name" && n !== "generateName")) return false;
  }
  return true;
}
