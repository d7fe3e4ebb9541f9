/**
 * Resource lists as quota computes with them (k8s.io/apiserver's quota helpers): maps of
 * resource name to exact quantity, added, subtracted, masked and compared.
 *
 * @module
 */
import { Quantity, tryParseQuantity } from "../../../shared/api/quantity.ts";
import { isObject } from "../../../shared/json/is_object.ts";

/** Resource name → quantity. */
export type ResourceList = Map<string, Quantity>;

const ZERO = new Quantity(0n, 0);
const ONE = new Quantity(1n, 0);

/** The quantity 1 (an object count). */
export function one(): Quantity {
  return ONE;
}

/** A JSON resource list (`{cpu: "500m"}`) as a ResourceList; unparsable values are skipped. */
export function parseResourceList(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isObject(v)) return out;
  for (const [k, q] of Object.entries(v)) {
    const parsed = tryParseQuantity(String(q));
    if (parsed) out.set(k, parsed);
  }
  return out;
}

/** The JSON form, keys sorted, quantities canonical. */
export function toJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = list.get(k)!.toString();
  return out;
}

/** `a + b` (every key of either). */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out = new Map(a);
  for (const [k, q] of b) out.set(k, (out.get(k) ?? ZERO).add(q));
  return out;
}

/** `a - b`, with every result below zero raised to zero (kube's SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const d = (a.get(k) ?? ZERO).sub(b.get(k) ?? ZERO);
    out.set(k, d.sign() < 0 ? ZERO : d);
  }
  return out;
}

/** The per-key maximum of `a` and `b`. */
export function max(a: ResourceList, b: ResourceList): ResourceList {
  const out = new Map(a);
  for (const [k, q] of b) {
    const cur = out.get(k);
    if (!cur || q.compareTo(cur) > 0) out.set(k, q);
  }
  return out;
}

/** Only the entries named in `names`. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const q = list.get(n);
    if (q) out.set(n, q);
  }
  return out;
}

/** Whether every quantity is zero. */
export function isZero(list: ResourceList): boolean {
  return [...list.values()].every((q) => q.sign() === 0);
}

/** The names whose quantity is negative, sorted. */
export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, q]) => q.sign() < 0).map(([k]) => k).sort();
}

/**
 * Whether every entry of `a` is at most the same entry of `b` (entries missing from `b` are
 * unlimited), and the names that are not.
 */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): [boolean, string[]] {
  const exceeded: string[] = [];
  for (const [k, q] of a) {
    const limit = b.get(k);
    if (limit && q.compareTo(limit) > 0) exceeded.push(k);
  }
  return [exceeded.length === 0, exceeded];
}

/** Whether two lists hold the same names with equal quantities. */
export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, q] of a) if (!b.get(k)?.equals(q)) return false;
  return true;
}

/** `name=quantity,...` sorted by name, as kube's quota messages print a list. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${list.get(k)!.toString()}`).join(",");
}
