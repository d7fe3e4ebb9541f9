/**
 * Retrying a transaction while the database is busy: another process (or another connection)
 * holds the write lock longer than SQLite's own busy timeout waited.
 *
 * @module
 */

/** Give up retrying after this long (ms). */
const BUSY_DEADLINE_MS = 30_000;
/** Longest pause between two tries (ms); pauses start at 2 ms and double. */
const MAX_BACKOFF_MS = 100;

/** Runs transactions again with backoff while the database is busy. */
export class BusyRetry {
  readonly #stats: { busyRetries: number };
  readonly #closed: () => boolean;

  /**
   * Counts each retry in `stats.busyRetries`; stops retrying once `closed()` is true (the
   * connection is gone, so waiting cannot help).
   */
  constructor(stats: { busyRetries: number }, closed: () => boolean) {
    this.#stats = stats;
    this.#closed = closed;
  }

  /** Runs `fn`, retrying with jittered backoff for up to 30 s while the database is busy. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = performance.now() + BUSY_DEADLINE_MS;
    for (let delay = 2;; delay = Math.min(delay * 2, MAX_BACKOFF_MS)) {
      try {
        return await fn();
      } catch (e) {
        if (!isBusy(e) || performance.now() > deadline || this.#closed()) throw e;
        this.#stats.busyRetries++;
        await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
      }
    }
  }
}

/** Whether `e` says the database was busy or locked (SQLITE_BUSY, SQLITE_LOCKED). */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  const text = `${typeof code === "string" ? code : ""} ${errorMessage(e)}`;
  return /SQLITE_BUSY|SQLITE_LOCKED|database is locked/i.test(text);
}

/** The message of an error, or the text of anything else thrown. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
