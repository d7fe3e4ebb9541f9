/**
 * The kubelet's lease retry backoff (`component-helpers/apimachinery/lease/controller.go`,
 * `backoffEnsureLease`): the wait starts at 100 ms and is doubled before each wait, capped at
 * 7 s, with no jitter, so the waits are 200 ms, 400 ms, 800 ms, 1.6 s, 3.2 s, 6.4 s, 7 s, 7 s, …
 *
 * @module
 */
import type { Clock } from "../clock/clock.ts";

/** The starting value, doubled before the first wait. */
export const LEASE_BACKOFF_BASE_MS = 100;
/** The cap on a single wait. */
export const LEASE_BACKOFF_MAX_MS = 7_000;

/** The sequence of waits; {@link LeaseBackoff.next} gives the next one. */
export class LeaseBackoff {
  #sleep: number;
  readonly #base: number;
  readonly #max: number;

  /** A fresh sequence (optionally with other base and cap, for tests of callers). */
  constructor(baseMs = LEASE_BACKOFF_BASE_MS, maxMs = LEASE_BACKOFF_MAX_MS) {
    this.#base = baseMs;
    this.#max = maxMs;
    this.#sleep = baseMs;
  }

  /** The next wait in milliseconds. */
  next(): number {
    this.#sleep = Math.min(2 * this.#sleep, this.#max);
    return this.#sleep;
  }

  /** Starts the sequence over. */
  reset(): void {
    this.#sleep = this.#base;
  }
}

/** Options of {@link retryWithBackoff}. */
export interface RetryOptions {
  /** Time source for the waits. */
  clock: Clock;
  /** Stops retrying; the promise then resolves to `undefined`. */
  signal?: AbortSignal;
  /** Told of every failure with the wait that follows it. */
  onError?: (err: unknown, waitMs: number) => void;
  /** The backoff sequence (a fresh {@link LeaseBackoff} by default). */
  backoff?: LeaseBackoff;
}

/**
 * Calls `attempt` until it succeeds, waiting with the lease backoff between failures, forever
 * or until the signal aborts (then resolves to `undefined`).
 */
export async function retryWithBackoff<T>(
  attempt: () => Promise<T>,
  opts: RetryOptions,
): Promise<T | undefined> {
  const backoff = opts.backoff ?? new LeaseBackoff();
  for (;;) {
    if (opts.signal?.aborted) return undefined;
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal?.aborted) return undefined;
      const wait = backoff.next();
      opts.onError?.(err, wait);
      try {
        await opts.clock.sleep(wait, opts.signal);
      } catch {
        return undefined;
      }
    }
  }
}

/**
 * The wait between two lease renewals: a quarter of the lease duration plus up to 4 % jitter
 * (`wait.JitterUntil(sync, renewInterval, 0.04, sliding=true)`), so 10 to 10.4 s for 40 s.
 */
export function renewInterval(
  leaseDurationSeconds: number,
  random: () => number = Math.random,
): number {
  const base = leaseDurationSeconds * 1000 * 0.25;
  return base + random() * 0.04 * base;
}
