/**
 * Deterministic CEL cost: per-node prices for the runtime tracker, the limits Kubernetes uses,
 * and a per-object budget shared by several expressions.
 *
 * @module
 */
import { celError } from "./errors.ts";
import type { CelEvalFailure } from "./errors.ts";

/** Kubernetes' per-expression runtime cost limit (`PerCallLimit`). */
export const PER_CALL_COST_LIMIT = 1_000_000;
/** Kubernetes' per-object runtime budget for CRD validation (`RuntimeCELCostBudget`). */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** Kubernetes' per-expression estimated cost limit (`StaticEstimatedCostLimit`). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' per-CRD estimated total (`StaticEstimatedCRDCostLimit`). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** The cost of one authorizer check. */
export const AUTHZ_CHECK_COST = 350_000;
/** The cost of creating a list literal. */
export const LIST_CREATE_COST = 40;
/** The cost of creating a map literal. */
export const MAP_CREATE_COST = 30;

/** A total budget shared by the expressions evaluated for one object. */
export class CostBudget {
  #remaining: number;
  /** Creates a budget of `total` cost units. */
  constructor(total: number = RUNTIME_COST_BUDGET) {
    this.#remaining = total;
  }
  /** Units left. */
  get remaining(): number {
    return this.#remaining;
  }
  /** Deducts `cost`; returns false when the budget is exhausted. */
  spend(cost: number): boolean {
    this.#remaining -= cost;
    return this.#remaining >= 0;
  }
}

/** Size of a runtime value for pricing: string/bytes length, list/map entries, else 1. */
export function sizeOf(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Set || v instanceof Map) return v.size;
  if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.keys(v).length;
  }
  return 1;
}

const STRING_TRAVERSAL = 0.1;
const REGEX_FACTOR = 0.25;

const TRAVERSE_RECEIVER = new Set([
  "contains",
  "startsWith",
  "endsWith",
  "lowerAscii",
  "upperAscii",
  "trim",
  "split",
  "join",
  "replace",
  "indexOf",
  "lastIndexOf",
  "substring",
  "charAt",
  "reverse",
  "format",
  "quote",
  "url",
  "isURL",
  "quantity",
  "isQuantity",
  "string",
  "bytes",
  "min",
  "max",
  "sum",
  "isSorted",
]);

/** Price of a function call from its name and argument values (receiver first). */
export function callCost(name: string, args: unknown[]): number {
  if (name === "matches" || name === "find" || name === "findAll") {
    return callCostFromSizes(name, args.filter((a) => typeof a === "string").map(sizeOf));
  }
  return callCostFromSizes(name, args.map(sizeOf));
}

/** Price of a function call from the sizes of its arguments (receiver first). */
export function callCostFromSizes(name: string, sizes: number[]): number {
  switch (name) {
    case "matches":
    case "find":
    case "findAll":
      return Math.max(1, Math.ceil((sizes[0] ?? 0) * REGEX_FACTOR)) *
        Math.max(1, Math.ceil((sizes[1] ?? 0) * REGEX_FACTOR));
    case "check":
      return AUTHZ_CHECK_COST;
  }
  if (TRAVERSE_RECEIVER.has(name)) {
    let size = 0;
    for (const s of sizes) size += s;
    return 1 + Math.ceil(size * STRING_TRAVERSAL);
  }
  return 1;
}

/** Price of a binary operator from its operand values. */
export function operatorCost(op: string, left: unknown, right: unknown): number {
  switch (op) {
    case "==":
    case "!=":
    case "<":
    case "<=":
    case ">":
    case ">=":
      if (typeof left === "string" || left instanceof Uint8Array) {
        return 1 + Math.ceil(Math.min(sizeOf(left), sizeOf(right)) * STRING_TRAVERSAL);
      }
      if (typeof left === "object" && left !== null && !(left instanceof Date)) {
        return 1 + Math.ceil(Math.min(sizeOf(left), sizeOf(right)) * STRING_TRAVERSAL);
      }
      return 1;
    case "+":
      if (typeof left === "string" || Array.isArray(left) || left instanceof Uint8Array) {
        return 1 + Math.ceil((sizeOf(left) + sizeOf(right)) * STRING_TRAVERSAL);
      }
      return 1;
    case "in":
      return Array.isArray(right) || right instanceof Set ? Math.max(1, sizeOf(right)) : 1;
  }
  return 1;
}

/** The error raised when a budget runs out. */
export function costExceeded(limit: number, what = "per-expression"): CelEvalFailure {
  return celError(
    "cost_limit_exceeded",
    `operation cancelled: actual cost limit exceeded (${what} limit ${limit})`,
  );
}
