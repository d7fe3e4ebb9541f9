/**
 * Reading and writing a field of an unstructured object by a dotted path (`.spec.replicas`),
 * with the errors of apimachinery's unstructured.NestedInt64 / NestedString.
 *
 * @module
 */
import { isObject } from "../../../../shared/json/is_object.ts";

/** The result of reading a nested field: its value, whether found, or an accessor error. */
export interface NestedValue<T> {
  value: T;
  found: boolean;
  error?: string;
}

/** The path's segments (a leading period is ignored, as kube does). */
export function pathSegments(path: string): string[] {
  return path.replace(/^\./, "").split(".");
}

/** Go's name of a decoded JSON value's type, as apimachinery's errors print it. */
function goType(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (Array.isArray(v)) return "[]interface {}";
  if (isObject(v)) return "map[string]interface {}";
  return "<nil>";
}

/** Go's %v of a decoded JSON value (for accessor errors). */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function lookup(obj: unknown, segs: string[]): { value: unknown; found: boolean; error?: string } {
  let cur: unknown = obj;
  for (let i = 0; i < segs.length; i++) {
    if (!isObject(cur)) {
      const at = "." + segs.slice(0, i).join(".");
      return {
        value: undefined,
        found: false,
        error: `${at} accessor error: ${goValue(cur)} is of the type ${
          goType(cur)
        }, expected map[string]interface{}`,
      };
    }
    if (!(segs[i] in cur)) return { value: undefined, found: false };
    cur = cur[segs[i]];
  }
  return { value: cur, found: true };
}

/** An integer field (unstructured.NestedInt64). */
export function nestedInt(obj: unknown, path: string): NestedValue<number> {
  const segs = pathSegments(path);
  const r = lookup(obj, segs);
  if (r.error) return { value: 0, found: false, error: r.error };
  if (!r.found) return { value: 0, found: false };
  if (typeof r.value !== "number" || !Number.isInteger(r.value)) {
    return {
      value: 0,
      found: false,
      error: `.${segs.join(".")} accessor error: ${goValue(r.value)} is of the type ${
        goType(r.value)
      }, expected int64`,
    };
  }
  return { value: r.value, found: true };
}

/** A string field (unstructured.NestedString). */
export function nestedString(obj: unknown, path: string): NestedValue<string> {
  const segs = pathSegments(path);
  const r = lookup(obj, segs);
  if (r.error) return { value: "", found: false, error: r.error };
  if (!r.found) return { value: "", found: false };
  if (typeof r.value !== "string") {
    return {
      value: "",
      found: false,
      error: `.${segs.join(".")} accessor error: ${goValue(r.value)} is of the type ${
        goType(r.value)
      }, expected string`,
    };
  }
  return { value: r.value, found: true };
}

/**
 * Sets a field, creating the objects on the way (unstructured.SetNestedField); an error when
 * a value on the way is not an object.
 */
export function setNested(
  obj: Record<string, unknown>,
  path: string,
  value: unknown,
): string | undefined {
  const segs = pathSegments(path);
  let cur: Record<string, unknown> = obj;
  for (let i = 0; i < segs.length - 1; i++) {
    const next = cur[segs[i]];
    if (next === undefined || next === null) cur[segs[i]] = {};
    else if (!isObject(next)) {
      return `value cannot be set because ${"." + segs.slice(0, i + 1).join(".")} accessor error: ${
        goValue(next)
      } is of the type ${goType(next)}, expected map[string]interface{}`;
    }
    cur = cur[segs[i]] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]] = value;
  return undefined;
}
