/**
 * The one test for "a JSON object": not null, not an array.
 *
 * @module
 */

/** Whether `v` is a plain JSON object (an object that is neither null nor an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
