/**
 * Kubernetes resource quantities (`100m`, `1Gi`, `500M`, `1e3`) as plain numbers.
 *
 * @module
 */

const SUFFIX: Record<string, number> = {
  "": 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * Parses a quantity into its numeric value (cores for CPU, bytes for memory).
 *
 * @throws {SyntaxError} when the text is not a quantity.
 */
export function parseQuantity(text: string): number {
  const m =
    /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/
      .exec(text.trim());
  if (!m) throw new SyntaxError(`Cannot parse quantity ${JSON.stringify(text)}`);
  if (m[2]) return Number(m[1] + m[2]);
  return Number(m[1]) * SUFFIX[m[3] ?? ""];
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
