/**
 * Standard-library conversions and operators the underlying library lacks: `int(uint)`,
 * `int(timestamp)`, `string(timestamp)`, `string(duration)`, `timestamp(timestamp)`,
 * `duration(duration)`, `duration(int)` style identities and ordering of bytes.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "../errors.ts";
import { compareValues } from "./compare.ts";
import { formatDuration, formatTimestamp } from "./format_value.ts";
import { Duration, UnsignedInt } from "./runtime_types.ts";

const sync = { async: false };
const MAX_INT = 9223372036854775807n;
const TS = "google.protobuf.Timestamp", DUR = "google.protobuf.Duration";

function tryRegister(env: Environment, sig: string, fn: (...a: never[]) => unknown): void {
  try {
    env.registerFunction(sig, fn as (...a: unknown[]) => unknown, sync);
  } catch {
    // already provided by the library
  }
}

/** Registers the missing conversions on `env`. */
export function registerConversionsLibrary(env: Environment): void {
  tryRegister(env, "int(uint): int", (v: UnsignedInt) => {
    if (v.valueOf() > MAX_INT) {
      throw celError("numeric_overflow", "int() type error: integer overflow");
    }
    return v.valueOf();
  });
  tryRegister(env, `int(${TS}): int`, (d: Date) => BigInt(Math.floor(d.getTime() / 1000)));
  tryRegister(env, `string(${TS}): string`, formatTimestamp);
  tryRegister(env, `string(${DUR}): string`, formatDuration);
  tryRegister(env, `timestamp(${TS}): ${TS}`, (d: Date) => d);
  tryRegister(env, `duration(${DUR}): ${DUR}`, (d: Duration) => d);
  for (const op of ["<", "<=", ">", ">="] as const) {
    try {
      env.registerOperator(`bytes ${op} bytes`, (a: Uint8Array, b: Uint8Array) => {
        const c = compareValues(a, b);
        return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
      });
    } catch {
      // already provided
    }
  }
}
