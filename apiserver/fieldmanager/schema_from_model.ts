/**
 * The field-ownership schema of a kind, derived from the shared schema model (no second copy of
 * any schema): list types from `x-kubernetes-list-type`/`listMapKeys`, or from
 * `patchStrategy: merge` with `patchMergeKey` where no list type is declared; map and struct
 * types from `x-kubernetes-map-type`. Kinds outside the model get the deduced schema.
 *
 * @module
 */
import type { FieldSchema, SchemaModel, TypeSchema } from "../../shared/api/schema/model.ts";
import {
  type ListType,
  type NamedType,
  Schema,
  type TypeRef,
  UNTYPED_ATOMIC,
  UNTYPED_DEDUCED,
} from "./schema.ts";

/** A schema and the type of a kind's objects in it. */
export interface KindSchema {
  schema: Schema;
  root: TypeRef;
}

const DEDUCED: KindSchema = {
  schema: new Schema([]),
  root: { namedType: UNTYPED_DEDUCED },
};

/** The deduced schema (unknown kinds: maps granular, lists atomic). */
export function deducedKindSchema(): KindSchema {
  return DEDUCED;
}

const CACHE = new WeakMap<SchemaModel, Schema>();

/** The ownership schema of `group/version/kind` in `model`, or the deduced one. */
export function kindSchema(
  model: SchemaModel,
  group: string,
  version: string,
  kind: string,
): KindSchema {
  const t = model.kind(group, version, kind);
  if (!t) return DEDUCED;
  let schema = CACHE.get(model);
  if (!schema) {
    schema = new Schema(modelNamedTypes(model));
    CACHE.set(model, schema);
  }
  return { schema, root: { namedType: t.name } };
}

/** The ownership types of every type of `model` (for schemas that refer to them, e.g. ObjectMeta). */
export function modelNamedTypes(model: SchemaModel): NamedType[] {
  return [...model.types()].map(namedType);
}

function namedType(t: TypeSchema): NamedType {
  if (t.scalar) return { name: t.name, ...atomOf(t.scalar) };
  if (t.preserveUnknownFields) {
    return { name: t.name, map: { elementType: { namedType: UNTYPED_DEDUCED } } };
  }
  return {
    name: t.name,
    map: {
      fields: Object.entries(t.properties).map(([name, f]) => ({
        name,
        type: fieldType(f),
        ...(f.default !== undefined ? { default: f.default } : {}),
      })),
      elementRelationship: t.structType === "atomic" ? "atomic" : "separable",
    },
  };
}

function atomOf(f: FieldSchema): Omit<TypeRef, "namedType"> {
  switch (f.type) {
    case "string":
      return { scalar: "string" };
    case "boolean":
      return { scalar: "boolean" };
    case "integer":
    case "number":
      return { scalar: "numeric" };
    case "intOrString":
    case "quantity":
      return { scalar: "untyped" };
    case "any":
      return { namedType: UNTYPED_DEDUCED } as TypeRef;
    case "ref":
      return {};
    case "array":
      return { list: listOf(f) };
    case "map":
      return {
        map: {
          elementType: f.values ? fieldType(f.values) : { namedType: UNTYPED_ATOMIC },
          elementRelationship: f.mapType === "atomic" ? "atomic" : "separable",
        },
      };
  }
}

function listOf(f: FieldSchema): ListType {
  const elementType = f.items ? fieldType(f.items) : { namedType: UNTYPED_ATOMIC };
  const merge = (f.patchStrategy ?? "").split(",").includes("merge");
  const lt = f.listType ?? (merge ? (f.patchMergeKey ? "map" : "set") : "atomic");
  if (lt === "atomic") return { elementType, elementRelationship: "atomic" };
  const keys = lt === "map"
    ? (f.listMapKeys && f.listMapKeys.length > 0
      ? f.listMapKeys
      : (f.patchMergeKey ? [f.patchMergeKey] : []))
    : undefined;
  return { elementType, elementRelationship: "associative", ...(keys ? { keys } : {}) };
}

function fieldType(f: FieldSchema): TypeRef {
  if (f.type === "ref" && f.ref) {
    return f.mapType === "atomic"
      ? { namedType: f.ref, elementRelationship: "atomic" }
      : { namedType: f.ref };
  }
  if (f.type === "any") return { namedType: UNTYPED_DEDUCED };
  return atomOf(f) as TypeRef;
}
