/**
 * Deep equality of JSON values.
 *
 * @module
 */
import { isObject } from "./is_object.ts";

/**
 * Whether two JSON values are equal: the same scalar, lists of equal items in the same order, or
 * maps with equal members whatever their key order. A member whose value is `undefined` counts
 * as absent, as it is when the value is serialized.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}
