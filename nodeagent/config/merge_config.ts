/**
 * Merging of configuration documents with exactly the four `--config-dir` rules:
 * 1. scalars in the later document override;
 * 2. nested structures are merged field by field;
 * 3. lists are replaced wholesale;
 * 4. maps are merged per key, and a map value (for example a list of strings) is replaced wholesale.
 *
 * A `null` value counts as not set.
 *
 * @module
 */
import type { FieldSchema } from "./config_schema.ts";
import { isObject } from "../../shared/json/is_object.ts";

/** A decoded YAML/JSON object. */
export type Doc = Record<string, unknown>;

function clone(v: unknown): unknown {
  return v === undefined ? undefined : structuredClone(v);
}

/**
 * Returns `overlay` merged onto `base` (neither is modified). Fields are treated according to
 * `schema`; a field the schema does not know is replaced like a scalar.
 */
export function mergeConfig(base: Doc, overlay: Doc, schema: FieldSchema): Doc {
  return mergeValue(base, overlay, schema) as Doc;
}

function mergeValue(base: unknown, overlay: unknown, schema: FieldSchema | undefined): unknown {
  if (overlay === null || overlay === undefined) return clone(base);
  if (!schema || !isObject(overlay) || !isObject(base)) return clone(overlay);
  if (schema.type === "struct") {
    const out: Doc = clone(base) as Doc;
    for (const [k, v] of Object.entries(overlay)) {
      out[k] = mergeValue(base[k], v, schema.fields[k]);
    }
    return out;
  }
  if (schema.type === "map") {
    const out: Doc = clone(base) as Doc;
    for (const [k, v] of Object.entries(overlay)) {
      if (v === null || v === undefined) continue;
      out[k] = clone(v);
    }
    return out;
  }
  return clone(overlay);
}

/**
 * Lists the field paths a document sets (leaves, list fields and map entries), in the path
 * notation of {@link fieldPath}; used to remember which file set which field.
 */
export function setFieldPaths(doc: Doc, schema: FieldSchema, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(doc)) {
    if (v === null || v === undefined) continue;
    const path = fieldPath(prefix, k, schema.type === "map");
    const child = schema.type === "struct"
      ? schema.fields[k]
      : schema.type === "map"
      ? schema.values
      : undefined;
    out.push(path);
    if (child && (child.type === "struct" || child.type === "map") && isObject(v)) {
      out.push(...setFieldPaths(v, child, path));
    }
  }
  return out;
}

/** Joins a field path: `a.b` for struct fields, `a[key]` for map keys. */
export function fieldPath(prefix: string, key: string, mapKey = false): string {
  if (mapKey) return `${prefix}[${key}]`;
  return prefix ? `${prefix}.${key}` : key;
}
