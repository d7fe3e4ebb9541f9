/**
 * Ordering and equality of CEL runtime values, shared by the list, quantity and value
 * libraries.
 *
 * @module
 */
import { celError } from "../errors.ts";
import { Duration, UnsignedInt } from "./runtime_types.ts";

function num(v: unknown): bigint | number | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

/** Compares two orderable CEL values; throws for values that have no order. */
export function compareValues(a: unknown, b: unknown): number {
  const na = num(a), nb = num(b);
  if (na !== undefined && nb !== undefined) {
    if (typeof na === "number" && Number.isNaN(na)) return Number.isNaN(nb as number) ? 0 : 1;
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    return a.seconds !== b.seconds
      ? (a.seconds < b.seconds ? -1 : 1)
      : Math.sign(a.nanos - b.nanos);
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return Math.sign(a.length - b.length);
  }
  const cmp = (a as { compareTo?: (o: unknown) => number })?.compareTo;
  if (typeof cmp === "function" && a?.constructor === (b as object)?.constructor) {
    return cmp.call(a, b);
  }
  throw celError("no_matching_overload", "no such overload: values are not comparable");
}

/** CEL equality over runtime values, with numeric cross-type equality and deep structure. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = num(a), nb = num(b);
  if (na !== undefined && nb !== undefined) return na == nb; // cross-type numeric equality
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) {
    return a.seconds === b.seconds && a.nanos === b.nanos;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  const eq = (a as { equals?: (o: unknown) => boolean }).equals;
  if (typeof eq === "function") return a.constructor === b.constructor && eq.call(a, b);
  const aList = Array.isArray(a) || a instanceof Set, bList = Array.isArray(b) || b instanceof Set;
  if (aList || bList) {
    if (!aList || !bList) return false;
    if (a instanceof Set || b instanceof Set) {
      const sa = a as Set<unknown> | unknown[], sb = b as Set<unknown> | unknown[];
      const la = [...sa], lb = [...sb];
      if (la.length !== lb.length) return false;
      return la.every((x) => lb.some((y) => celEquals(x, y)));
    }
    const la = a as unknown[], lb = b as unknown[];
    return la.length === lb.length && la.every((x, i) => celEquals(x, lb[i]));
  }
  const ea = entries(a), eb = entries(b);
  if (ea.size !== eb.size) return false;
  for (const [k, v] of ea) {
    if (!eb.has(k) || !celEquals(v, eb.get(k))) return false;
  }
  return true;
}

function entries(o: object): Map<unknown, unknown> {
  if (o instanceof Map) return new Map([...o].filter(([, v]) => v !== undefined));
  return new Map(Object.entries(o));
}
