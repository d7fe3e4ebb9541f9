/**
 * The work queue of the controllers: keys to sync, each processed once however often it was
 * added while it waited, one at a time, in the order first added (client-go's workqueue, without
 * its rate limiting).
 *
 * @module
 */

/** A coalescing queue of keys, processed one at a time by `process`. */
export class WorkQueue<K> {
  readonly #process: (key: K) => Promise<void>;
  readonly #onError: (key: K, err: unknown) => void;
  readonly #pending = new Set<K>();
  #running?: Promise<void>;
  #stopped = false;

  /** `process` syncs one key; `onError` hears what it threw (the queue goes on). */
  constructor(process: (key: K) => Promise<void>, onError: (key: K, err: unknown) => void) {
    this.#process = process;
    this.#onError = onError;
  }

  /** Whether {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Queues `key` (once: a key already waiting is not queued again). */
  add(key: K): void {
    if (this.#stopped) return;
    this.#pending.add(key);
    this.#running ??= this.#drain();
  }

  async #drain(): Promise<void> {
    // Start after the caller's turn: `#running` is set before any key is processed, so a key
    // added from inside `process` joins this drain instead of starting a second one.
    await Promise.resolve();
    try {
      while (this.#pending.size > 0 && !this.#stopped) {
        const [key] = this.#pending;
        this.#pending.delete(key);
        try {
          await this.#process(key);
        } catch (err) {
          this.#onError(key, err);
        }
      }
    } finally {
      this.#running = undefined;
    }
  }

  /** Resolves when nothing is being processed or waiting. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Drops what waits, and resolves once the key in progress is done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pending.clear();
    await this.idle();
  }
}
