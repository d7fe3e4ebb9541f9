/**
 * kube's `intstr.GetScaledValueFromIntOrPercent`: an integer, or a percentage of `total`
 * rounded up or down.
 *
 * @module
 */

/** The value of `v` (a number or `"<n>%"`) against `total`; `fallback` when absent or bad. */
export function scaledValue(v: unknown, total: number, roundUp: boolean, fallback = 0): number {
  if (typeof v === "number") return v;
  if (typeof v !== "string") return fallback;
  const m = /^([0-9]+)%$/.exec(v);
  if (!m) return /^[0-9]+$/.test(v) ? Number(v) : fallback;
  const exact = Number(m[1]) * total / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}
