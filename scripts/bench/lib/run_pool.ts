/**
 * Runs a numbered operation `count` times from `concurrency` concurrent workers, bounded by a
 * wall-clock cap, and records each operation's latency.
 *
 * @module
 */

/** Options of {@link runPool}. */
export interface PoolOptions {
  /** Operations to run (numbered 0 … count-1). */
  count: number;
  /** Workers issuing operations concurrently. */
  concurrency: number;
  /** No operation starts after this many ms. */
  capMs: number;
  /** Added to the operation number (so rounds can continue a numbering). */
  offset?: number;
}

/** Result of {@link runPool}. */
export interface PoolResult {
  /** Operations that completed without error. */
  done: number;
  /** Operations that threw. */
  failed: number;
  /** First error seen, if any. */
  firstError?: unknown;
  /** Wall-clock seconds from the first start to the last completion. */
  seconds: number;
  /** Latency of every successful operation, in ms, in completion order. */
  latenciesMs: number[];
  /** True when the cap stopped the run before `count` operations. */
  capped: boolean;
}

/**
 * Runs `op(i, worker)` for i in [offset, offset + count) from `concurrency` workers (`worker`
 * is the index of the worker running it, from 0).
 */
export async function runPool(
  opts: PoolOptions,
  op: (i: number, worker: number) => Promise<void>,
): Promise<PoolResult> {
  const { count, concurrency, capMs } = opts;
  const offset = opts.offset ?? 0;
  for (const [name, v] of Object.entries({ count, concurrency, capMs, offset })) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a natural number`);
  }
  if (concurrency === 0) throw new RangeError("concurrency must be positive");
  const result: PoolResult = { done: 0, failed: 0, seconds: 0, latenciesMs: [], capped: false };
  const start = performance.now();
  let next = 0;
  const worker = async (_: unknown, w: number) => {
    for (;;) {
      if (next >= count) return;
      if (performance.now() - start > capMs) {
        result.capped = true;
        return;
      }
      const i = next++;
      const t0 = performance.now();
      try {
        await op(offset + i, w);
        result.latenciesMs.push(performance.now() - t0);
        result.done++;
      } catch (e) {
        result.failed++;
        result.firstError ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(count, 1)) }, worker));
  result.seconds = (performance.now() - start) / 1000;
  return result;
}
