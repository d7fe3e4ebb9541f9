/**
 * The CEL quantity library over the shared {@link Quantity} (`shared/api/quantity.ts`):
 * `isQuantity`, `quantity`, `isInteger`, `asInteger`, `asApproximateFloat`, `sign`, `add`, `sub`,
 * `isLessThan`, `isGreaterThan`, `compareTo` and `==`.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";
import {
  Quantity,
  QUANTITY_FORMAT_MESSAGE,
  tryParseQuantity,
} from "../../../shared/api/quantity.ts";
import { celError } from "../errors.ts";

export { Quantity, type QuantityFormat } from "../../../shared/api/quantity.ts";

const sync = { async: false };

/**
 * Parses a quantity for CEL, returning undefined when invalid. Binary values are not capped at
 * 2^63-1 here (Kubernetes' parser caps them), so `asInteger()` of `10Ei` reports an overflow.
 */
function parseForCel(s: string): Quantity | undefined {
  return tryParseQuantity(s, { capBinary: false });
}

function asInteger(q: Quantity): bigint {
  if (!q.isInteger()) {
    throw celError("invalid_argument", "cannot convert value to integer: fractional quantity");
  }
  const v = q.asInt64();
  if (v === undefined) {
    throw celError("numeric_overflow", "cannot convert value to integer: integer overflow");
  }
  return v;
}

/** Registers the quantity library on `env`. */
export function registerQuantityLibrary(env: Environment): void {
  const T = "kubernetes.Quantity";
  env.registerType(T, Quantity);
  env.registerOperator(`${T} == ${T}`, (a: Quantity, b: Quantity) => a.equals(b));
  env.registerFunction(
    "isQuantity(string): bool",
    (s: string) => parseForCel(s) !== undefined,
    sync,
  );
  env.registerFunction(`quantity(string): ${T}`, (s: string) => {
    const q = parseForCel(s);
    if (!q) {
      throw celError(
        "invalid_argument",
        QUANTITY_FORMAT_MESSAGE,
      );
    }
    return q;
  }, sync);
  env.registerFunction(`${T}.isInteger(): bool`, (q: Quantity) => q.isInteger(), sync);
  env.registerFunction(`${T}.asInteger(): int`, asInteger, sync);
  env.registerFunction(
    `${T}.asApproximateFloat(): double`,
    (q: Quantity) => q.asApproximateFloat(),
    sync,
  );
  env.registerFunction(`${T}.sign(): int`, (q: Quantity) => BigInt(q.sign()), sync);
  env.registerFunction(`${T}.add(${T}): ${T}`, (a: Quantity, b: Quantity) => a.add(b), sync);
  env.registerFunction(
    `${T}.add(int): ${T}`,
    (a: Quantity, b: bigint) => a.add(new Quantity(b, 0)),
    sync,
  );
  env.registerFunction(`${T}.sub(${T}): ${T}`, (a: Quantity, b: Quantity) => a.sub(b), sync);
  env.registerFunction(
    `${T}.sub(int): ${T}`,
    (a: Quantity, b: bigint) => a.sub(new Quantity(b, 0)),
    sync,
  );
  env.registerFunction(
    `${T}.isLessThan(${T}): bool`,
    (a: Quantity, b: Quantity) => a.compareTo(b) < 0,
    sync,
  );
  env.registerFunction(
    `${T}.isGreaterThan(${T}): bool`,
    (a: Quantity, b: Quantity) => a.compareTo(b) > 0,
    sync,
  );
  env.registerFunction(
    `${T}.compareTo(${T}): int`,
    (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)),
    sync,
  );
}
