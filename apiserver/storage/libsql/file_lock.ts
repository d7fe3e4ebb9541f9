/**
 * The in-process write lock of an embedded database file, shared by every storage instance
 * in this process that opened the same file, so they never contend inside SQLite: a write
 * lock SQLite refuses with SQLITE_BUSY leaves the refused statement active on its pooled
 * connection until garbage collection, and every later COMMIT on that connection fails with
 * "SQL statements in progress". Other processes are kept apart by SQLite's own lock.
 *
 * @module
 */

/** The lock of one file: the end of its queue and how many instances hold a handle. */
interface SharedLock {
  tail: Promise<void>;
  users: number;
}

/** Locks by real path. Process-wide by nature: it is what the instances of one file share. */
const fileLocks = new Map<string, SharedLock>();

/** One instance's handle on the write lock of its database file. */
export class FileLock {
  #path: string | undefined;

  private constructor(path: string) {
    this.#path = path;
  }

  /** Takes a handle on the lock of the file of `url` (`file:…`), by its real path. */
  static acquire(url: string): FileLock {
    let path = url.slice("file:".length).replace(/[?#].*$/, "");
    if (path.startsWith("//")) path = path.slice(2);
    try {
      path = Deno.realPathSync(path);
    } catch {
      // keep the path as given
    }
    const lock = fileLocks.get(path) ?? { tail: Promise.resolve(), users: 0 };
    lock.users++;
    fileLocks.set(path, lock);
    return new FileLock(path);
  }

  /** Runs `fn` holding the lock (after {@link release}, without it). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const lock = this.#path === undefined ? undefined : fileLocks.get(this.#path);
    if (!lock) return await fn();
    const previous = lock.tail;
    let release = () => {};
    lock.tail = new Promise<void>((resolve) => release = resolve);
    try {
      await previous;
      return await fn();
    } finally {
      release();
    }
  }

  /** Gives the handle up; the lock is forgotten when its last handle goes. */
  release(): void {
    const path = this.#path;
    const lock = path === undefined ? undefined : fileLocks.get(path);
    if (path === undefined || !lock) return;
    this.#path = undefined;
    if (--lock.users === 0) fileLocks.delete(path);
  }
}
