/**
 * How many times a node's rules may run for one object, as apiextensions' CEL schema context
 * estimates it: the product of the bounds (`maxItems`, `maxProperties`) of the enclosing lists
 * and maps; when any of them is unbounded, the most values of the node's type that fit in the
 * largest request.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../../../shared/api/apiextensions/v1/types.ts";
import { MAX_REQUEST_SIZE_BYTES } from "../../../cel/mod.ts";

/** The smallest serialized size of a value of `s` in bytes. */
export function minSerializedSize(s: JSONSchemaProps): number {
  if (s["x-kubernetes-int-or-string"]) return 1;
  switch (s.type) {
    case "string":
      return 2 + Math.max(0, s.minLength ?? 0);
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return 4;
    default:
      return 2;
  }
}

/** The bound of a list (`maxItems`) or map (`maxProperties`); Infinity when unbounded. */
export function elementBound(parent: JSONSchemaProps, kind: "list" | "map"): number {
  const b = kind === "list" ? parent.maxItems : parent.maxProperties;
  return typeof b === "number" ? Math.max(0, b) : Infinity;
}

/** Multiplies cardinalities (0 wins over an unbounded factor). */
export function multiplyCardinality(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : a * b;
}

/** The cardinality used for a node's rules: the product, or the request-size estimate. */
export function siteCardinality(product: number, node: JSONSchemaProps): number {
  if (Number.isFinite(product)) return product;
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(node) + 1));
}
