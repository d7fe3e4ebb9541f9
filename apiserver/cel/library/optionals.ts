/**
 * Optional-type members the underlying library lacks: `optional.ofNonZeroValue`, and `==`/`!=`
 * between optionals.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celEquals } from "./compare.ts";
import { Duration, Optional, UnsignedInt } from "./runtime_types.ts";

function isZero(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === "" || v === 0 || v === 0n) return true;
  if (v instanceof UnsignedInt) return v.valueOf() === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Set || v instanceof Map) return v.size === 0;
  if (v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.keys(v).length === 0;
  }
  return false;
}

function optEquals(a: Optional, b: Optional): boolean {
  if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
  return celEquals(a.value(), b.value());
}

/** Registers the optional-type additions on `env`. */
export function registerOptionalsLibrary(env: Environment): void {
  env.registerFunction(
    "OptionalNamespace.ofNonZeroValue(A): optional<A>",
    (_: unknown, v: unknown) => (isZero(v) ? Optional.none() : Optional.of(v)),
    { async: false },
  );
  env.registerOperator("optional<dyn> == optional<dyn>", optEquals);
}
