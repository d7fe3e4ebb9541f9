/**
 * What kube's webhook converter checks of each object a conversion webhook returns: the same
 * kind, name, namespace and uid as the object sent, and metadata changes limited to labels
 * and annotations (valid ones). The rest of the metadata is the original's, restored. The
 * messages are kube's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  validateAnnotations,
  validateLabels,
} from "../../../../shared/api/validation/object_meta.ts";

type Obj = Record<string, unknown>;

/** Go's `%T` of a decoded JSON value, as kube's messages print it. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return typeof v;
}

function metaString(obj: Obj, field: string): string {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const v = meta[field];
  return typeof v === "string" ? v : "";
}

/** The first difference of kind, name, namespace or uid, or undefined (validateConvertedObject). */
export function convertedObjectProblem(original: Obj, converted: Obj): string | undefined {
  const pairs: [string, string, string][] = [
    ["kind", String(original.kind ?? ""), String(converted.kind ?? "")],
    ["name", metaString(original, "name"), metaString(converted, "name")],
    ["namespace", metaString(original, "namespace"), metaString(converted, "namespace")],
    ["UID", metaString(original, "uid"), metaString(converted, "uid")],
  ];
  for (const [what, a, b] of pairs) {
    if (a !== b) return `must have the same ${what}: ${a} != ${b}`;
  }
  return undefined;
}

/** Go's ErrorList.ToAggregate().Error(): one message, or `[a, b]`. */
function aggregate(errs: FieldError[]): string {
  const msgs = errs.map(fieldErrorMessage);
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`;
}

/**
 * `converted` with the original's metadata, keeping the converted labels and annotations
 * (restoreObjectMeta). Answers the problem instead when the converted metadata is unusable.
 */
export function restoreObjectMeta(
  original: KubeObject,
  converted: Obj,
): { object: KubeObject } | { problem: string } {
  if (!("metadata" in converted)) return { problem: "missing metadata in converted object" };
  const answered = converted.metadata;
  if (!isObject(answered)) {
    return { problem: `invalid metadata of type ${goTypeOf(answered)} in converted object` };
  }
  const meta = structuredClone(original.metadata ?? {}) as Obj;
  for (const field of ["labels", "annotations"] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete meta[field];
      continue;
    }
    if (!isObject(value)) {
      return {
        problem: `invalid metadata.${field} of type ${goTypeOf(value)} in converted object`,
      };
    }
    const before = isObject(meta[field]) ? meta[field] as Obj : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "string") {
        return {
          problem: `metadata.${field}[${k}] must be a string, but is ${
            goTypeOf(v)
          } in converted object`,
        };
      }
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = field === "labels"
        ? validateLabels(value, "metadata.labels")
        : validateAnnotations(value, "metadata.annotation");
      if (errs.length > 0) return { problem: aggregate(errs) };
    }
    meta[field] = value;
  }
  return { object: { ...converted, metadata: meta } as KubeObject };
}
