/**
 * The work queue of a controller that syncs objects by key (client-go's rate-limited work
 * queue): keys are queued (from an informer or the change feed), synced one at a time however
 * often they were queued, retried with back-off (1 s doubling to 60 s) when their sync throws,
 * and may be queued again later (`after`; the earliest time asked for wins). Stopping drops
 * what waits and the timers.
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import { WorkQueue } from "./work_queue.ts";

/** A keyed work queue. */
export class KeyedQueue {
  readonly #queue: WorkQueue<string>;
  readonly #timers = new Map<string, { at: number; timer: ReturnType<typeof setTimeout> }>();
  readonly #failures = new Map<string, number>();

  /** `sync` syncs one key; `name` names the loop in logs. */
  constructor(name: string, sync: (key: string) => Promise<void>, logger?: Logger) {
    this.#queue = new WorkQueue(async (key) => {
      await sync(key);
      this.#failures.delete(key);
    }, (key, err) => {
      const n = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, n);
      logger?.warn(`${name} sync failed`, { key, err: String(err) });
      this.after(key, Math.min(1000 * 2 ** (n - 1), 60_000));
    });
  }

  /** Whether the loop was stopped. */
  get stopped(): boolean {
    return this.#queue.stopped;
  }

  /** Queues `key`. */
  add(key: string): void {
    this.#queue.add(key);
  }

  /** Queues `key` after `ms`, unless it is already due earlier. */
  after(key: string, ms: number): void {
    if (this.#queue.stopped) return;
    const delay = Math.min(Math.max(ms, 0), 2 ** 31 - 1);
    const at = Date.now() + delay;
    const pending = this.#timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.#queue.add(key);
    }, delay);
    this.#timers.set(key, { at, timer });
  }

  /** Resolves when nothing is synced or waits in the queue (timers aside). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Stops: drops waiting keys and timers, waits for the sync in progress. */
  async stop(): Promise<void> {
    for (const t of this.#timers.values()) clearTimeout(t.timer);
    this.#timers.clear();
    await this.#queue.stop();
  }
}
