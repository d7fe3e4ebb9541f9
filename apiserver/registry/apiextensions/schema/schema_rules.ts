/**
 * The CRD-write rules on each schema node (apiextensions validation.go,
 * ValidateCustomResourceDefinitionOpenAPISchema and its spec standard validator): unsupported
 * JSON-Schema keywords, `type`, `uniqueItems`, `additionalProperties` with `properties`,
 * where defaults may sit, and the `x-kubernetes-list-type`/`-list-map-keys`/`-map-type`/
 * `-preserve-unknown-fields` markers. The CEL rules found on the way are collected with what
 * their checks need (where `oldSelf` is allowed, how often the rule may run).
 *
 * @module
 */
import type {
  JSONSchemaProps,
  ValidationRule,
} from "../../../../shared/api/apiextensions/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { childPath, indexPath, keyPath } from "./field_paths.ts";
import { additionalOf, itemsOf } from "./schema_nodes.ts";
import { validateListMarkers, validateMapListKeys } from "./list_markers.ts";
import { validateRuleFields } from "./rule_fields.ts";
import { elementBound, multiplyCardinality, siteCardinality } from "./cardinality.ts";
import { mapIsCorrelatable } from "./list_values.ts";

/** One schema node carrying `x-kubernetes-validations`, found while walking the schema. */
export interface RuleSite {
  /** The node. */
  schema: JSONSchemaProps;
  /** Its field path. */
  path: string;
  /** Whether it is the resource root (self has apiVersion/kind/metadata). */
  root: boolean;
  /** Set when `oldSelf` is not allowed: the uncorrelatable ancestor's path. */
  uncorrelatable?: string;
  /** How many times the rules may run for one object (for the cost estimate). */
  cardinality: number;
}

/** The state passed down the walk (kube's specStandardValidator and CEL schema context). */
interface Walk {
  disallowDefaults?: string;
  insideMeta: boolean;
  uncorrelatable?: string;
  /** Product of the enclosing bounds (Infinity: unbounded); undefined under junctors. */
  cardinality?: number;
  sites: RuleSite[];
}

const TYPES = ["array", "boolean", "integer", "number", "object", "string"];
const META_FIELDS = new Set(["metadata", "kind", "apiVersion"]);

/** The node rules of the whole schema, and the rule sites for the CEL checks. */
export function validateSchemaNodes(
  schema: JSONSchemaProps,
  path: string,
): { errors: FieldError[]; sites: RuleSite[] } {
  const w: Walk = { insideMeta: false, cardinality: 1, sites: [] };
  const errors = walk(schema, path, w, true);
  return { errors, sites: w.sites };
}

function walk(s: JSONSchemaProps, path: string, w: Walk, isRoot: boolean): FieldError[] {
  const errs: FieldError[] = [...standardRules(s, path, w)];
  if (s.uniqueItems === true) {
    errs.push(forbidden(
      childPath(path, "uniqueItems"),
      "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
    ));
  }
  errs.push(...walkAdditional(s, path, w));
  errs.push(...walkProperties(s, path, w, isRoot));
  errs.push(...walkJunctors(s, path, w));
  errs.push(...walkItems(s, path, w));
  errs.push(...markerRules(s, path));
  errs.push(...validateListMarkers(s, path));
  errs.push(...validateMapListKeys(s, path));
  errs.push(...validateRuleFields(s, path));
  if (s["x-kubernetes-validations"]?.length && w.cardinality !== undefined) {
    w.sites.push({
      schema: s,
      path,
      root: isRoot,
      uncorrelatable: w.uncorrelatable,
      cardinality: siteCardinality(w.cardinality, s),
    });
  }
  return errs;
}

function mapCorrelatable(s: JSONSchemaProps): boolean {
  return mapIsCorrelatable(s["x-kubernetes-map-type"]);
}

function walkAdditional(s: JSONSchemaProps, path: string, w: Walk): FieldError[] {
  if (s.additionalProperties === undefined) return [];
  const errs: FieldError[] = [];
  const ap = additionalOf(s);
  if (Object.keys(s.properties ?? {}).length > 0 && (s.additionalProperties === false || ap)) {
    errs.push(forbidden(
      childPath(path, "additionalProperties"),
      "additionalProperties and properties are mutual exclusive",
    ));
  }
  if (!ap) return errs;
  const sub: Walk = { ...w };
  if (w.insideMeta) {
    sub.disallowDefaults = "inside additionalProperties applying to object metadata";
  }
  if (!mapCorrelatable(s)) sub.uncorrelatable ??= path;
  if (w.cardinality !== undefined) {
    sub.cardinality = multiplyCardinality(w.cardinality, elementBound(s, "map"));
  }
  errs.push(...walk(ap, childPath(path, "additionalProperties"), sub, false));
  return errs;
}

function walkProperties(s: JSONSchemaProps, path: string, w: Walk, isRoot: boolean): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const sub: Walk = { ...w };
    if (!mapCorrelatable(s)) sub.uncorrelatable ??= path;
    if ((isRoot || s["x-kubernetes-embedded-resource"] === true) && META_FIELDS.has(k)) {
      sub.insideMeta = true;
      if (isRoot) sub.disallowDefaults = `in top-level ${k}`;
    }
    errs.push(...walk(p, keyPath(childPath(path, "properties"), k), sub, false));
  }
  return errs;
}

function walkJunctors(s: JSONSchemaProps, path: string, w: Walk): FieldError[] {
  const errs: FieldError[] = [];
  const sub: Walk = { ...w, cardinality: undefined };
  if (s.not) errs.push(...walk(s.not, childPath(path, "not"), sub, false));
  const lists = [["allOf", s.allOf], ["oneOf", s.oneOf], ["anyOf", s.anyOf]] as const;
  for (const [name, list] of lists) {
    list?.forEach((n, i) => errs.push(...walk(n, indexPath(childPath(path, name), i), sub, false)));
  }
  for (const [k, d] of Object.entries(s.definitions ?? {})) {
    errs.push(...walk(d, keyPath(childPath(path, "definitions"), k), sub, false));
  }
  return errs;
}

function walkItems(s: JSONSchemaProps, path: string, w: Walk): FieldError[] {
  if (s.items === undefined) return [];
  const sub: Walk = { ...w };
  if (s["x-kubernetes-list-type"] !== "map") sub.uncorrelatable ??= path;
  const items = itemsOf(s);
  const ip = childPath(path, "items");
  if (items) {
    if (w.cardinality !== undefined) {
      sub.cardinality = multiplyCardinality(w.cardinality, elementBound(s, "list"));
    }
    return walk(items, ip, sub, false);
  }
  if (!Array.isArray(s.items)) return [];
  const errs: FieldError[] = [];
  const nested: Walk = { ...sub, cardinality: undefined };
  s.items.forEach((n, i) => errs.push(...walk(n, indexPath(ip, i), nested, false)));
  return errs;
}

function markerRules(s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s["x-kubernetes-preserve-unknown-fields"] === false) {
    errs.push(invalid(
      childPath(path, "x-kubernetes-preserve-unknown-fields"),
      false,
      "must be true or undefined",
    ));
  }
  const mapType = s["x-kubernetes-map-type"];
  if (mapType !== undefined && s.type !== "object") {
    const msg = "must be object if x-kubernetes-map-type is specified";
    const tp = childPath(path, "type");
    errs.push(s.type ? invalid(tp, s.type, msg) : required(tp, msg));
  }
  if (mapType !== undefined && mapType !== "atomic" && mapType !== "granular") {
    errs.push(
      notSupported(childPath(path, "x-kubernetes-map-type"), mapType, ["atomic", "granular"]),
    );
  }
  return errs;
}

function standardRules(s: JSONSchemaProps, path: string, w: Walk): FieldError[] {
  const errs: FieldError[] = [];
  const f = (name: string, msg: string) => errs.push(forbidden(childPath(path, name), msg));
  if (s.type && !TYPES.includes(s.type)) {
    errs.push(notSupported(childPath(path, "type"), s.type, TYPES));
  }
  if (w.disallowDefaults && s.default !== undefined) {
    f("default", `must not be set ${w.disallowDefaults}`);
  }
  if (s.id) f("id", "id is not supported");
  if (s.additionalItems !== undefined) f("additionalItems", "additionalItems is not supported");
  if (Object.keys(s.patternProperties ?? {}).length) {
    f("patternProperties", "patternProperties is not supported");
  }
  if (Object.keys(s.definitions ?? {}).length) f("definitions", "definitions is not supported");
  if (s.dependencies !== undefined) f("dependencies", "dependencies is not supported");
  if (s.$ref !== undefined) f("$ref", "$ref is not supported");
  if (s.type === "null") f("type", "type cannot be set to null, use nullable as an alternative");
  if (Array.isArray(s.items) && s.items.length) {
    f("items", "items must be a schema object and not an array");
  }
  if (w.insideMeta && s["x-kubernetes-embedded-resource"]) {
    f("x-kubernetes-embedded-resource", "must not be used inside of resource meta");
  }
  return errs;
}

/** The rules of a node, for callers that only need the list. */
export function rulesOf(s: JSONSchemaProps): ValidationRule[] {
  return s["x-kubernetes-validations"] ?? [];
}
