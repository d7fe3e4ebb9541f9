/**
 * The field-ownership schema of a custom resource, from its version's OpenAPI v3 schema, as
 * structured-merge-diff types CRDs: `x-kubernetes-list-type` atomic/set/map (with
 * `x-kubernetes-list-map-keys`), lists without a marker atomic, `x-kubernetes-map-type`
 * atomic/granular, `additionalProperties` as the element type, preserve-unknown-fields and
 * untyped nodes deduced, int-or-string untyped scalars, embedded resources with apiVersion,
 * kind and metadata, and the root's `metadata` typed as ObjectMeta.
 *
 * @module
 */
import type { JSONSchemaProps } from "../../shared/api/apiextensions/v1/types.ts";
import type { SchemaModel } from "../../shared/api/schema/model.ts";
import { type Atom, type NamedType, Schema, type StructField, type TypeRef } from "./schema.ts";
import { UNTYPED_DEDUCED } from "./schema.ts";
import { type KindSchema, modelNamedTypes } from "./schema_from_model.ts";

const OBJECT_META = "meta.v1.ObjectMeta";
const ROOT = "__custom_resource_";
const DEDUCED: TypeRef = { namedType: UNTYPED_DEDUCED };
const STRING: TypeRef = { scalar: "string" };

const CACHE = new WeakMap<JSONSchemaProps, KindSchema>();

/** The ownership schema of a custom resource whose version's schema is `schema` (cached). */
export function customResourceKindSchema(
  model: SchemaModel,
  schema: JSONSchemaProps,
): KindSchema {
  let ks = CACHE.get(schema);
  if (!ks) {
    const root: NamedType = { name: ROOT, ...objectAtom(schema, true) };
    ks = { schema: new Schema([...modelNamedTypes(model), root]), root: { namedType: ROOT } };
    CACHE.set(schema, ks);
  }
  return ks;
}

/** The type of one schema node. */
function typeOf(s: JSONSchemaProps | undefined): TypeRef {
  if (!s) return DEDUCED;
  if (s["x-kubernetes-int-or-string"]) return { scalar: "untyped" };
  if (s["x-kubernetes-embedded-resource"]) return objectAtom(s, true);
  switch (s.type) {
    case "string":
      return { scalar: "string" };
    case "integer":
    case "number":
      return { scalar: "numeric" };
    case "boolean":
      return { scalar: "boolean" };
    case "array":
      return { list: listAtom(s) };
    case "object":
      return objectAtom(s, false);
  }
  return DEDUCED;
}

function listAtom(s: JSONSchemaProps): NonNullable<Atom["list"]> {
  const items = Array.isArray(s.items) ? undefined : s.items;
  const elementType = typeOf(items);
  switch (s["x-kubernetes-list-type"]) {
    case "set":
      return { elementType, elementRelationship: "associative" };
    case "map":
      return {
        elementType,
        elementRelationship: "associative",
        keys: s["x-kubernetes-list-map-keys"] ?? [],
      };
    default:
      return { elementType, elementRelationship: "atomic" };
  }
}

/**
 * An object: its properties as fields, `additionalProperties` (or, preserving unknown fields,
 * deduced values) as the element type; a resource (root or embedded) also has apiVersion, kind
 * and an ObjectMeta `metadata`.
 */
function objectAtom(s: JSONSchemaProps, resource: boolean): Atom {
  const fields: StructField[] = [];
  if (resource) {
    fields.push({ name: "apiVersion", type: STRING }, { name: "kind", type: STRING });
    fields.push({ name: "metadata", type: { namedType: OBJECT_META } });
  }
  for (const [name, p] of Object.entries(s.properties ?? {})) {
    if (resource && (name === "apiVersion" || name === "kind" || name === "metadata")) continue;
    fields.push({
      name,
      type: typeOf(p),
      ...(p.default !== undefined ? { default: p.default } : {}),
    });
  }
  const ap = s.additionalProperties;
  const elementType = typeof ap === "object"
    ? typeOf(ap)
    : s["x-kubernetes-preserve-unknown-fields"] || ap === true
    ? DEDUCED
    : undefined;
  return {
    map: {
      fields,
      ...(elementType ? { elementType } : {}),
      elementRelationship: s["x-kubernetes-map-type"] === "atomic" ? "atomic" : "separable",
    },
  };
}
