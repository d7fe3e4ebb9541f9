/**
 * Kubernetes resource quantities (`100m`, `1Gi`, `500M`, `1e3`) as plain numbers, and the
 * kubelet's way of writing CPU and memory amounts.
 *
 * @module
 */
import { Quantity } from "../../shared/api/quantity.ts";

/**
 * The numeric value of a quantity (cores for CPU, bytes for memory), read by the shared
 * Kubernetes quantity parser; surrounding spaces are ignored, as `Quantity.UnmarshalJSON` does.
 *
 * @throws {QuantityParseError} (a SyntaxError) with Kubernetes' message for invalid text.
 */
export function parseQuantity(text: string): number {
  return Quantity.parse(text.trim()).asApproximateFloat();
}

/** Formats a CPU amount in cores the way the kubelet reports it (`2`, `1500m`). */
export function formatCpu(cores: number): string {
  const milli = Math.round(cores * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Formats a byte count the way the kubelet reports memory (`16384Ki` when divisible, else bytes). */
export function formatBytes(bytes: number): string {
  const b = Math.max(0, Math.floor(bytes));
  if (b !== 0 && b % 1024 === 0) return `${b / 1024}Ki`;
  return String(b);
}
