/**
 * A manually advanced clock for tests: time moves only when {@link FakeClock.advance} is called.
 *
 * @module
 */
import type { Clock } from "./clock.ts";

interface Sleeper {
  at: number;
  resolve: () => void;
}

/** A clock whose time moves only on request; records every sleep asked of it. */
export class FakeClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];
  /** Every duration passed to {@link FakeClock.sleep}, in order. */
  readonly sleeps: number[] = [];

  /** Starts at `start` milliseconds since the epoch. */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  /** The current fake time. */
  now(): number {
    return this.#now;
  }

  /** Number of sleeps not yet due. */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** Resolves when the fake time has advanced by `ms`. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const s: Sleeper = { at: this.#now + ms, resolve };
      this.#sleepers.push(s);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((x) => x !== s);
        reject(signal.reason);
      }, { once: true });
    });
  }

  /** Moves time forward and wakes the sleepers that are due. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.at > this.#now);
    for (const s of due) s.resolve();
  }
}
