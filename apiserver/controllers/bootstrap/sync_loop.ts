/**
 * A controller's loop over one whole-state sync: run once at start, again after every change
 * under the prefixes it follows (every API server's commits), at its own period, and when the
 * sync asks for a later run (a token that expires then). Runs never overlap.
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { WorkQueue } from "../work_queue.ts";

/** Options of the loop. */
export interface SyncLoopOptions {
  /** What the loop is called in logs. */
  name: string;
  feed: ChangeFeed;
  /** Key prefixes whose changes trigger a sync. */
  prefixes: string[];
  /** The sync; it may answer the delay (ms) after which it wants to run again. */
  sync: () => Promise<number | undefined>;
  /** Resync period, ms (default 60 s). */
  periodMs?: number;
  logger?: Logger;
}

/** Runs a sync on changes, periodically and when asked. */
export class SyncLoop {
  readonly #opts: SyncLoopOptions;
  readonly #queue: WorkQueue<"sync">;
  #unsubscribe?: () => void;
  #interval?: ReturnType<typeof setInterval>;
  #later?: ReturnType<typeof setTimeout>;

  constructor(opts: SyncLoopOptions) {
    this.#opts = opts;
    this.#queue = new WorkQueue(
      () => this.#run(),
      (_, err) => opts.logger?.error(`${opts.name} sync failed`, { err: String(err) }),
    );
  }

  /** Starts following the prefixes; the first sync is queued. */
  async start(): Promise<void> {
    if (this.#queue.stopped || this.#unsubscribe) return;
    const trigger = () => this.#queue.add("sync");
    this.#unsubscribe = await this.#opts.feed.follow(this.#opts.prefixes, {
      reset: trigger,
      changes: trigger,
    });
    this.#interval = setInterval(trigger, this.#opts.periodMs ?? 60_000);
    trigger();
  }

  /** Resolves when no sync runs or waits. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops the loop and waits for the sync in progress. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    clearInterval(this.#interval);
    clearTimeout(this.#later);
    await this.#queue.stop();
  }

  async #run(): Promise<void> {
    const again = await this.#opts.sync();
    if (again === undefined || this.#queue.stopped) return;
    clearTimeout(this.#later);
    // At least 100 ms apart, at most the timer's range.
    const delay = Math.min(Math.max(again, 100), 2 ** 31 - 1);
    this.#later = setTimeout(() => this.#queue.add("sync"), delay);
  }
}
