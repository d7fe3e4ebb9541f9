/**
 * Range checks the underlying library skips: int64 overflow of negation and division,
 * `int(double)` out of range, and timestamp/duration results outside CEL's ranges
 * (year 1 to 9999, about ±10000 years of duration).
 *
 * @module
 */
import type { AstNode } from "./ast.ts";
import { callName } from "./ast.ts";
import { celError } from "./errors.ts";
import { Duration } from "./library/runtime_types.ts";

const MAX_INT = 9223372036854775807n, MIN_INT = -9223372036854775808n;
const MIN_TS = -62135596800000, MAX_TS = 253402300799999;
const MAX_DURATION_SECONDS = 315576000000n;

const OPS = new Set(["+", "-", "*", "/", "%", "-_"]);
const CALLS = new Set(["int", "uint", "duration", "timestamp"]);

/** Throws a CEL error when `v` is outside its type's range; returns `v` otherwise. */
export function checkRange(v: unknown): unknown {
  if (typeof v === "bigint") {
    if (v > MAX_INT || v < MIN_INT) throw celError("numeric_overflow", "integer overflow");
  } else if (v instanceof Date) {
    const t = v.getTime();
    if (!(t >= MIN_TS && t <= MAX_TS)) throw celError("numeric_overflow", "timestamp out of range");
  } else if (v instanceof Duration) {
    if (v.seconds > MAX_DURATION_SECONDS || v.seconds < -MAX_DURATION_SECONDS) {
      throw celError("numeric_overflow", "duration out of range");
    }
  }
  return v;
}

/** Wraps arithmetic and conversion nodes so their results are range checked. */
export function installRangeCheck(node: AstNode): void {
  if (!OPS.has(node.op) && !CALLS.has(callName(node) ?? "")) return;
  const meta = (node as unknown as {
    meta?: { evaluate?: AstNode["evaluate"]; alternate?: unknown; macro?: unknown };
  })
    .meta;
  const inner = meta?.evaluate;
  if (!inner || meta.alternate || meta.macro) return;
  node.evaluate = (ev, ast, ctx) => {
    const v = inner(ev, ast, ctx);
    return v instanceof Promise ? v : checkRange(v);
  };
}
