/**
 * The patch metadata strategic merge patch reads from the shared schema model: per field, its
 * patch strategies (`merge`, `retainKeys`, `replace`), merge key and the schema of its value.
 *
 * @module
 */
import type { FieldSchema, SchemaModel } from "../api/schema/model.ts";

/** What strategic merge patch knows about one field. */
export interface StrategicField {
  /** Patch strategies, e.g. `["merge", "retainKeys"]`. */
  strategies: readonly string[];
  /** Merge key of a merged list of objects. */
  mergeKey?: string;
  /** Schema of the value (an object), of list items or of map values, when they are objects. */
  schema?: StrategicSchema;
}

/** Field lookups of an object type. */
export interface StrategicSchema {
  field(name: string): StrategicField | undefined;
}

/** The strategic schema of the named type `typeName` of `model`. */
export function strategicSchemaOf(model: SchemaModel, typeName: string): StrategicSchema {
  return {
    field(name) {
      const f = model.type(typeName)?.properties[name];
      return f ? fieldOf(model, f, true) : undefined;
    },
  };
}

function fieldOf(model: SchemaModel, f: FieldSchema, outer: boolean): StrategicField {
  const strategies = outer && f.patchStrategy ? f.patchStrategy.split(",") : [];
  return {
    strategies,
    mergeKey: outer ? f.patchMergeKey : undefined,
    schema: valueSchema(model, f),
  };
}

/** The schema of a value of `f`: an object type, a map's members, or a list's items. */
function valueSchema(model: SchemaModel, f: FieldSchema | undefined): StrategicSchema | undefined {
  if (!f) return undefined;
  if (f.type === "ref" && f.ref) {
    return model.type(f.ref)?.scalar ? undefined : strategicSchemaOf(model, f.ref);
  }
  if (f.type === "array") return valueSchema(model, f.items);
  if (f.type === "map") {
    const member: StrategicField = { strategies: [], schema: valueSchema(model, f.values) };
    return { field: () => member };
  }
  return undefined;
}
