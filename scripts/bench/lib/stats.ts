/**
 * Small statistics helpers for benchmarks: nearest-rank percentiles and medians.
 *
 * @module
 */

/**
 * The nearest-rank `p`th percentile (0 < p ≤ 100) of `values` (any order; not modified).
 * Returns NaN for an empty array.
 */
export function percentile(values: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * The median of `values` (mean of the two middle values for an even count). NaN values are
 * ignored; returns NaN when nothing is left.
 */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
