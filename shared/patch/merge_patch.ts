/**
 * JSON Merge Patch (RFC 7386): objects merge recursively, `null` removes a member, anything
 * else (arrays included) replaces.
 *
 * @module
 */
import { isObject } from "../json/is_object.ts";

/** Applies a merge patch to `target` and returns the result; inputs are not changed. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}
