/**
 * cloneValue: a deep copy of a JSON-like value, as the store copies request bodies.
 *
 * @module
 */

/**
 * A deep copy of a JSON-like value: plain objects, arrays and primitives are copied directly
 * (much faster than structuredClone on a request body); anything else goes to structuredClone.
 */
export function cloneValue<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = cloneValue((value as Record<string, unknown>)[k]);
    // An own "__proto__" key (JSON.parse makes one) stays a key, never the prototype.
    if (k === "__proto__") {
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[k] = v;
  }
  return out as T;
}
