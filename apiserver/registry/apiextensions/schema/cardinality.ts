/**
 * How many times a node's rules may run for one object, as apiextensions' CEL schema context
 * estimates it: the product of the bounds of the enclosing lists and maps (`maxItems`,
 * `maxProperties`), unbounded ones estimated from the largest request.
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

/** The largest number of elements of a list (`kind` list) or map under `parent`. */
export function maxCardinality(
  parent: JSONSchemaProps,
  child: JSONSchemaProps,
  kind: "list" | "map",
): number {
  if (kind === "list" && typeof parent.maxItems === "number") return Math.max(0, parent.maxItems);
  if (kind === "map" && typeof parent.maxProperties === "number") {
    return Math.max(0, parent.maxProperties);
  }
  const room = MAX_REQUEST_SIZE_BYTES - 2;
  const per = kind === "list" ? minSerializedSize(child) + 1 : minSerializedSize(child) + 5;
  return Math.floor(room / per);
}
