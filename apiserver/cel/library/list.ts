/**
 * Kubernetes' CEL list library: `indexOf`, `lastIndexOf`, `min`, `max`, `sum`, `isSorted`.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "../errors.ts";
import { celEquals, compareValues } from "./compare.ts";
import { Duration, UnsignedInt } from "./runtime_types.ts";

const sync = { async: false };
const MAX_INT = 9223372036854775807n, MIN_INT = -9223372036854775808n;

function items(l: unknown[] | Set<unknown>): unknown[] {
  return Array.isArray(l) ? l : [...l];
}

function extreme(name: string, sign: number) {
  return (l: unknown[] | Set<unknown>) => {
    const xs = items(l);
    if (xs.length === 0) {
      throw celError("invalid_argument", `${name}(list) called on an empty list`);
    }
    let best = xs[0];
    for (const x of xs) if (compareValues(x, best) * sign > 0) best = x;
    return best;
  };
}

/** Registers the list library on `env`. */
export function registerListLibrary(env: Environment): void {
  env.registerFunction("list<A>.indexOf(A): int", (l: unknown[], v: unknown) => {
    const xs = items(l);
    for (let i = 0; i < xs.length; i++) if (celEquals(xs[i], v)) return BigInt(i);
    return -1n;
  }, sync);
  env.registerFunction("list<A>.lastIndexOf(A): int", (l: unknown[], v: unknown) => {
    const xs = items(l);
    for (let i = xs.length - 1; i >= 0; i--) if (celEquals(xs[i], v)) return BigInt(i);
    return -1n;
  }, sync);
  env.registerFunction("list<A>.min(): A", extreme("min", -1), sync);
  env.registerFunction("list<A>.max(): A", extreme("max", 1), sync);
  env.registerFunction("list<A>.isSorted(): bool", (l: unknown[]) => {
    const xs = items(l);
    for (let i = 1; i < xs.length; i++) if (compareValues(xs[i - 1], xs[i]) > 0) return false;
    return true;
  }, sync);
  env.registerFunction("list<int>.sum(): int", (l: bigint[]) => {
    let s = 0n;
    for (const x of items(l) as bigint[]) {
      s += x;
      if (s > MAX_INT || s < MIN_INT) throw celError("numeric_overflow", "integer overflow");
    }
    return s;
  }, sync);
  env.registerFunction("list<uint>.sum(): uint", (l: UnsignedInt[]) => {
    let s = 0n;
    for (const x of items(l) as UnsignedInt[]) s += x.valueOf();
    try {
      return new UnsignedInt(s);
    } catch {
      throw celError("numeric_overflow", "unsigned integer overflow");
    }
  }, sync);
  env.registerFunction("list<double>.sum(): double", (l: number[]) => {
    let s = 0;
    for (const x of items(l) as number[]) s += x;
    return s;
  }, sync);
  env.registerFunction(
    "list<google.protobuf.Duration>.sum(): google.protobuf.Duration",
    (l: Duration[]) => {
      let s = new Duration(0n, 0);
      for (const x of items(l) as Duration[]) s = s.addDuration(x);
      return s;
    },
    sync,
  );
}
