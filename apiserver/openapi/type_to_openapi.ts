/**
 * The OpenAPI v3 schemas of the schema model's types: properties, required fields, and the
 * list-type, map-type, merge and group-version-kind extensions.
 *
 * @module
 */
import type { FieldSchema, SchemaModel, TypeSchema } from "../../shared/api/schema/model.ts";

/** A JSON object of an OpenAPI document. */
export type Json = Record<string, unknown>;

/** A reference to a schema of the document's components. */
export function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

function fieldToOpenApi(model: SchemaModel, f: FieldSchema, top = true): Json {
  const out: Json = {};
  if (top && f.description) out.description = f.description;
  switch (f.type) {
    case "ref": {
      const t = model.type(f.ref!);
      const name = t?.openApiName ?? f.ref!;
      if (!top) return ref(name);
      out.allOf = [ref(name)];
      break;
    }
    case "array":
      out.type = "array";
      out.items = fieldToOpenApi(model, f.items!, false);
      break;
    case "map":
      out.type = "object";
      out.additionalProperties = fieldToOpenApi(model, f.values!, false);
      break;
    case "intOrString":
      out.type = "string";
      out.format = "int-or-string";
      break;
    case "quantity":
      out.type = "string";
      break;
    case "any":
      out["x-kubernetes-preserve-unknown-fields"] = true;
      break;
    default:
      out.type = f.type;
      if (f.format) out.format = f.format;
  }
  if (f.enum) out.enum = [...f.enum];
  if (f.default !== undefined) out.default = f.default;
  if (f.listType) out["x-kubernetes-list-type"] = f.listType;
  if (f.listMapKeys) out["x-kubernetes-list-map-keys"] = [...f.listMapKeys];
  if (f.mapType) out["x-kubernetes-map-type"] = f.mapType;
  if (f.patchStrategy) out["x-kubernetes-patch-strategy"] = f.patchStrategy;
  if (f.patchMergeKey) out["x-kubernetes-patch-merge-key"] = f.patchMergeKey;
  return out;
}

/** The OpenAPI v3 schema of one model type. */
export function typeToOpenApi(model: SchemaModel, t: TypeSchema): Json {
  if (t.scalar) return fieldToOpenApi(model, t.scalar);
  const out: Json = { type: "object" };
  if (t.description) out.description = t.description;
  if (!t.preserveUnknownFields) {
    out.properties = Object.fromEntries(
      Object.entries(t.properties).map(([k, f]) => [k, fieldToOpenApi(model, f)]),
    );
    const required = [...t.required, ...t.documentedRequired ?? []];
    if (required.length > 0) out.required = required;
  }
  if (t.structType) out["x-kubernetes-map-type"] = t.structType;
  if (t.gvk) out["x-kubernetes-group-version-kind"] = t.gvk.map((g) => ({ ...g }));
  return out;
}
