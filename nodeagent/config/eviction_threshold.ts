/**
 * Hard eviction thresholds (`evictionHard`): `memory.available: 100Mi`, `nodefs.available: 10%`.
 *
 * @module
 */
import { parseQuantity } from "./quantity.ts";

/** The signals the agent understands. */
export const EVICTION_SIGNALS = [
  "memory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "pid.available",
] as const;

/** One eviction signal name. */
export type EvictionSignal = typeof EVICTION_SIGNALS[number];

/** A threshold: pressure when the signal's available amount drops below it. */
export type EvictionThreshold =
  | { signal: EvictionSignal; quantity: number }
  | { signal: EvictionSignal; percentage: number };

/**
 * Parses one `evictionHard` entry.
 *
 * @throws {RangeError} for an unknown signal or a value out of range.
 * @throws {SyntaxError} for an unparsable value.
 */
export function parseEvictionThreshold(signal: string, value: string): EvictionThreshold {
  if (!(EVICTION_SIGNALS as readonly string[]).includes(signal)) {
    throw new RangeError(`Unsupported eviction signal ${signal}`);
  }
  const s = signal as EvictionSignal;
  const v = value.trim();
  if (v.endsWith("%")) {
    const p = Number(v.slice(0, -1));
    if (v.length < 2 || !Number.isFinite(p)) {
      throw new SyntaxError(`Cannot parse percentage ${JSON.stringify(value)}`);
    }
    if (p < 0 || p > 100) throw new RangeError(`Percentage ${value} must be between 0% and 100%`);
    return { signal: s, percentage: p / 100 };
  }
  const q = parseQuantity(v);
  if (q < 0) throw new RangeError(`Eviction threshold ${signal} must be positive: ${value}`);
  return { signal: s, quantity: q };
}

/** Resolves a threshold to an absolute amount given the signal's capacity. */
export function thresholdAmount(t: EvictionThreshold, capacity: number): number {
  return "quantity" in t ? t.quantity : t.percentage * capacity;
}
