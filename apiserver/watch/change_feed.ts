/**
 * Feeds the watch caches from storage in strict revision order. Revisions are gap-free across
 * every process sharing the database, so the feed knows exactly which revision comes next:
 * this process's commits (`onCommit`) are applied at once when they are the next ones; a gap
 * means another process wrote in between, and the change log (`changesSince`) is read to fill
 * it before anything later is applied. The log is also polled on a timer (about every second
 * with a libSQL server, slowly with an embedded file) so other processes' writes arrive within
 * about a second. If the feed falls behind the compacted history it lists everything again
 * and closes the open watchers (their clients resume or relist).
 *
 * @module
 */
import {
  type ChangeEvent,
  CompactedError,
  type KeyValue,
  type Storage,
} from "../storage/interface.ts";
import type { ObjectCodec } from "./cached_object.ts";
import { WatchCache } from "./watch_cache.ts";

/** Timing and size knobs of the watch caches (defaults follow Kubernetes). */
export interface WatchTuning {
  /** Period of the change-log poll (ms). Default 1000 with a libSQL server, 5000 embedded. */
  pollIntervalMs?: number;
  /** Period of periodic bookmarks (ms). Default 60 000. */
  bookmarkIntervalMs?: number;
  /** A bookmark is sent this long before a watch's deadline (ms). Default 2000. */
  bookmarkBeforeDeadlineMs?: number;
  /** Period of the housekeeping tick (bookmarks, history trimming), ms. Default 1000. */
  tickMs?: number;
  /** Live events buffered per watcher before it is closed as too slow. Default 1024. */
  watcherBufferSize?: number;
  /** Bytes of live events buffered per watcher before it is closed as too slow. Default 32 MiB. */
  watcherBufferBytes?: number;
  /**
   * Longest a live event may wait in a watcher's buffer (ms) before the watcher is closed as
   * too slow. Default 2000.
   */
  watcherMaxLagMs?: number;
  /** Most events kept per resource. Default 102 400 (Kubernetes' largest cache). */
  maxHistoryEvents?: number;
  /** How long a watch or list waits for a revision the cache has not reached (ms). Default 3000. */
  resourceVersionWaitMs?: number;
  /** Smallest and largest default watch timeout (s). Default 1800 and 3600. */
  minRequestTimeoutSeconds?: number;
}

/** Options of a {@link ChangeFeed}. */
export interface ChangeFeedOptions {
  storage: Storage;
  /** Whether other processes may write (a libSQL server): poll the log every second. */
  remote: boolean;
  /** The storage's history window (ms); the rings keep at most this much. */
  historyWindowMs: number;
  tuning?: WatchTuning;
  /** Clock (ms since the epoch). */
  now?: () => number;
  /** Reports background failures (a poll that failed); the feed retries on its own. */
  onError?: (message: string, err: unknown) => void;
}

const POLL_BATCH = 500;

/**
 * Follows the raw changes under some key prefixes through a {@link ChangeFeed}: every
 * process's commits, in revision order, each once.
 */
export interface FeedFollower {
  /**
   * The complete state under the prefixes at `revision`: first when following starts, and
   * again whenever the feed lists everything anew (it fell behind the compacted history), so
   * anything not in `items` is gone.
   */
  reset(items: KeyValue[], revision: number): void;
  /** Changes after the last reset, in revision order. */
  changes(events: ChangeEvent[]): void;
}

interface FollowerEntry {
  prefixes: readonly string[];
  follower: FeedFollower;
  /** Changes held while the initial list is read. */
  held?: ChangeEvent[];
  /** Set when the feed listed everything anew while the initial list was read. */
  resetAt?: number;
}

/** One feed per server, holding one cache per resource. */
export class ChangeFeed {
  readonly tuning: Required<WatchTuning>;
  readonly now: () => number;
  readonly #storage: Storage;
  readonly #historyWindowMs: number;
  readonly #onError: (message: string, err: unknown) => void;
  readonly #caches = new Map<string, WatchCache>();
  /** Caches by the first two segments of their prefix (see {@link headOf}). */
  readonly #cachesByHead = new Map<string, WatchCache[]>();
  /** Caches whose prefix has fewer than two segments: offered every change. */
  readonly #looseCaches: WatchCache[] = [];
  /** Every change up to this revision has been applied to every cache. */
  #revision = 0;
  #compacted = 0;
  /** This process's commits that arrived ahead of a gap, by revision. */
  #ahead = new Map<number, ChangeEvent>();
  #waiters: { revision: number; resolve: () => void }[] = [];
  #unsubscribe: (() => void) | undefined;
  #started = false;
  #stopped = false;
  #polling: Promise<void> | undefined;
  #pollAgain = false;
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  #tickTimer: ReturnType<typeof setInterval> | undefined;
  #loads = new Set<Promise<void>>();
  readonly #followers = new Set<FollowerEntry>();

  constructor(opts: ChangeFeedOptions) {
    this.#storage = opts.storage;
    this.#historyWindowMs = opts.historyWindowMs;
    this.now = opts.now ?? Date.now;
    this.#onError = opts.onError ?? (() => {});
    const t = opts.tuning ?? {};
    this.tuning = {
      pollIntervalMs: t.pollIntervalMs ?? (opts.remote ? 1000 : 5000),
      bookmarkIntervalMs: t.bookmarkIntervalMs ?? 60_000,
      bookmarkBeforeDeadlineMs: t.bookmarkBeforeDeadlineMs ?? 2000,
      tickMs: t.tickMs ?? 1000,
      watcherBufferSize: t.watcherBufferSize ?? 1024,
      watcherBufferBytes: t.watcherBufferBytes ?? 32 * 1024 * 1024,
      watcherMaxLagMs: t.watcherMaxLagMs ?? 2000,
      maxHistoryEvents: t.maxHistoryEvents ?? 100 * 1024,
      resourceVersionWaitMs: t.resourceVersionWaitMs ?? 3000,
      minRequestTimeoutSeconds: t.minRequestTimeoutSeconds ?? 1800,
    };
  }

  /** The revision every cache has reached. */
  get revision(): number {
    return this.#revision;
  }

  /** Whether {@link ChangeFeed.start} finished. */
  get synced(): boolean {
    return this.#started && !this.#stopped;
  }

  /** The caches, by key prefix. */
  get caches(): ReadonlyMap<string, WatchCache> {
    return this.#caches;
  }

  /**
   * The cache of a resource prefix, created on first use. A cache added after start reads its
   * objects at the feed's revision before it serves anything.
   */
  cacheFor(prefix: string, codec: ObjectCodec): WatchCache {
    let cache = this.#caches.get(prefix);
    if (cache) return cache;
    cache = new WatchCache(prefix, codec, {
      windowMs: this.#historyWindowMs,
      maxEvents: this.tuning.maxHistoryEvents,
    });
    this.#caches.set(prefix, cache);
    const head = headOf(prefix);
    if (head === undefined) this.#looseCaches.push(cache);
    else {
      const group = this.#cachesByHead.get(head);
      if (group) group.push(cache);
      else this.#cachesByHead.set(head, [cache]);
    }
    if (this.#started && !this.#stopped) this.#loadLate(cache);
    return cache;
  }

  /**
   * Drops the cache of a resource prefix (a kind no longer served): its watchers are closed
   * and it no longer follows changes. A later {@link ChangeFeed.cacheFor} creates it anew.
   */
  dropCache(prefix: string): void {
    const cache = this.#caches.get(prefix);
    if (!cache) return;
    this.#caches.delete(prefix);
    const head = headOf(prefix);
    const list = head === undefined ? this.#looseCaches : this.#cachesByHead.get(head) ?? [];
    const at = list.indexOf(cache);
    if (at >= 0) list.splice(at, 1);
    if (head !== undefined && list.length === 0) this.#cachesByHead.delete(head);
    cache.closeAll("shutdown");
  }

  /**
   * Follows the changes under `prefixes` (after {@link ChangeFeed.start}): lists them at the
   * feed's revision, hands that state to `follower.reset`, then every later change to
   * `follower.changes`, in revision order, whichever process committed it. Resolves once the
   * initial state was delivered; returns a function that stops following.
   */
  async follow(prefixes: readonly string[], follower: FeedFollower): Promise<() => void> {
    if (!this.#started || this.#stopped) throw new Error("the change feed is not running");
    const entry: FollowerEntry = { prefixes, follower, held: [] };
    this.#followers.add(entry);
    const stop = () => {
      this.#followers.delete(entry);
    };
    try {
      const at = this.#revision;
      const items: KeyValue[] = [];
      for (const prefix of prefixes) {
        items.push(...(await this.#storage.list(prefix, { revision: at })).items);
      }
      const held = entry.held ?? [];
      entry.held = undefined;
      // A re-list while we listed already delivered a newer state.
      const from = entry.resetAt ?? at;
      if (entry.resetAt === undefined) follower.reset(items, at);
      const later = held.filter((ev) => ev.revision > from);
      if (later.length > 0) follower.changes(later);
    } catch (err) {
      stop();
      throw err;
    }
    return stop;
  }

  /** Lists everything once, then follows the change log. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#unsubscribe = this.#storage.onCommit((events) => this.#onCommit(events));
    for (const cache of this.#caches.values()) cache.beginLoading();
    await this.#relist();
    this.#started = true;
    this.#schedulePoll();
    this.#tickTimer = setInterval(() => this.#tick(), this.tuning.tickMs);
  }

  /** Stops following storage and closes every watcher. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    clearTimeout(this.#pollTimer);
    clearInterval(this.#tickTimer);
    for (const cache of this.#caches.values()) cache.closeAll("shutdown");
    for (const w of this.#waiters) w.resolve();
    this.#waiters = [];
    await this.#polling?.catch(() => {});
    await Promise.allSettled([...this.#loads]);
  }

  /**
   * Waits until every cache has reached `revision`, reading the change log at once if it has
   * not. Resolves true when reached, false after `timeoutMs`.
   */
  async waitFor(revision: number, timeoutMs = this.tuning.resourceVersionWaitMs): Promise<boolean> {
    if (this.#revision >= revision) return true;
    if (this.#stopped) return false;
    this.requestPoll();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let entry: { revision: number; resolve: () => void } | undefined;
    const reached = new Promise<boolean>((resolve) => {
      entry = { revision, resolve: () => resolve(this.#revision >= revision) };
      this.#waiters.push(entry);
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    // While waiting, keep asking the log (another process may be committing it right now).
    const again = setInterval(() => this.requestPoll(), 100);
    try {
      return await reached;
    } finally {
      clearTimeout(timer);
      clearInterval(again);
      this.#waiters = this.#waiters.filter((w) => w !== entry);
    }
  }

  /**
   * Waits until the caches hold everything committed before the call (a consistent read).
   * Resolves false if that took longer than the wait limit.
   */
  async waitFresh(): Promise<boolean> {
    const current = await this.#storage.currentRevision();
    return await this.waitFor(current);
  }

  /** Reads the change log now (coalesced with a poll already running). */
  requestPoll(): void {
    if (this.#stopped || !this.#started) return;
    if (this.#polling) {
      this.#pollAgain = true;
      return;
    }
    this.#polling = this.#pollLoop().finally(() => {
      this.#polling = undefined;
    });
  }

  // ---- feeding ----

  #onCommit(events: ChangeEvent[]): void {
    if (this.#stopped) return;
    if (!this.#started) {
      for (const ev of events) this.#ahead.set(ev.revision, ev);
      return;
    }
    let gap = false;
    for (const ev of events) {
      if (ev.revision <= this.#revision) continue;
      if (ev.revision === this.#revision + 1 && !gap) this.#applyOne(ev);
      else {
        gap = true;
        this.#ahead.set(ev.revision, ev);
      }
    }
    this.#drainAhead();
    this.#notify();
    if (this.#ahead.size > 0) this.requestPoll();
  }

  #applyOne(ev: ChangeEvent): void {
    const now = this.now();
    const head = headOf(ev.key);
    const group = head === undefined ? undefined : this.#cachesByHead.get(head);
    if (group) {
      for (const cache of group) if (ev.key.startsWith(cache.prefix)) cache.apply(ev, now);
    }
    for (const cache of this.#looseCaches) {
      if (ev.key.startsWith(cache.prefix)) cache.apply(ev, now);
    }
    this.#revision = ev.revision;
    for (const entry of this.#followers) {
      if (!entry.prefixes.some((p) => ev.key.startsWith(p))) continue;
      if (entry.held) entry.held.push(ev);
      else this.#deliver(entry, () => entry.follower.changes([ev]));
    }
  }

  #deliver(entry: FollowerEntry, call: () => void): void {
    try {
      call();
    } catch (err) {
      this.#onError(`change feed: a follower of ${entry.prefixes.join(", ")} failed`, err);
    }
  }

  #drainAhead(): void {
    for (;;) {
      const next = this.#ahead.get(this.#revision + 1);
      if (!next) break;
      this.#ahead.delete(next.revision);
      this.#applyOne(next);
    }
    for (const rev of this.#ahead.keys()) if (rev <= this.#revision) this.#ahead.delete(rev);
  }

  #notify(): void {
    if (this.#waiters.length === 0) return;
    const done = this.#waiters.filter((w) => w.revision <= this.#revision);
    if (done.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => w.revision > this.#revision);
    for (const w of done) w.resolve();
  }

  async #pollLoop(): Promise<void> {
    do {
      this.#pollAgain = false;
      try {
        await this.#pollOnce();
      } catch (err) {
        if (this.#stopped) return;
        this.#onError("watch cache: reading the change log failed", err);
        return;
      }
    } while (this.#pollAgain && !this.#stopped);
  }

  async #pollOnce(): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      let batch: ChangeEvent[];
      try {
        batch = await this.#storage.changesSince(this.#revision, POLL_BATCH);
      } catch (err) {
        if (err instanceof CompactedError) {
          this.#onError("watch cache fell behind the compacted history; listing again", err);
          await this.#relist();
          return;
        }
        throw err;
      }
      if (this.#stopped) return;
      for (const ev of batch) {
        if (ev.revision <= this.#revision) continue;
        if (ev.revision !== this.#revision + 1) {
          // Cannot happen with a gap-free log; read again from where we are.
          break;
        }
        this.#applyOne(ev);
        this.#drainAhead();
      }
      this.#drainAhead();
      this.#notify();
      if (batch.length < POLL_BATCH) break;
    }
    const compacted = await this.#storage.compactedRevision();
    if (compacted > this.#compacted) {
      this.#compacted = compacted;
      this.#trim();
    }
  }

  async #relist(): Promise<void> {
    const list = await this.#storage.list("/registry/");
    const now = this.now();
    const byPrefix = new Map<WatchCache, KeyValue[]>();
    for (const cache of this.#caches.values()) byPrefix.set(cache, []);
    for (const kv of list.items) {
      for (const cache of this.#caches.values()) {
        if (kv.key.startsWith(cache.prefix)) byPrefix.get(cache)!.push(kv);
      }
    }
    for (const [cache, items] of byPrefix) {
      cache.beginLoading();
      cache.reset(items, list.revision, now);
    }
    for (const entry of this.#followers) {
      const items = list.items.filter((kv) => entry.prefixes.some((p) => kv.key.startsWith(p)));
      if (entry.held) {
        // Its own initial list is still being read: this state replaces it.
        entry.held = [];
        entry.resetAt = list.revision;
      }
      this.#deliver(entry, () => entry.follower.reset(items, list.revision));
    }
    this.#revision = Math.max(this.#revision, list.revision);
    this.#drainAhead();
    this.#notify();
  }

  #loadLate(cache: WatchCache): void {
    cache.beginLoading();
    const at = this.#revision;
    const load = (async () => {
      try {
        const list = await this.#storage.list(cache.prefix, { revision: at });
        cache.reset(list.items, list.revision, this.now());
      } catch (err) {
        this.#onError(`watch cache: loading ${cache.prefix} failed; listing everything`, err);
        await this.#relist().catch((e) => this.#onError("watch cache: listing failed", e));
      }
    })();
    this.#loads.add(load);
    load.finally(() => this.#loads.delete(load));
  }

  #schedulePoll(): void {
    if (this.#stopped) return;
    this.#pollTimer = setTimeout(() => {
      this.requestPoll();
      const running = this.#polling ?? Promise.resolve();
      running.finally(() => this.#schedulePoll());
    }, this.tuning.pollIntervalMs);
  }

  #tick(): void {
    const now = this.now();
    for (const cache of this.#caches.values()) {
      cache.bookmarkTick(
        this.#revision,
        now,
        this.tuning.bookmarkIntervalMs,
        this.tuning.bookmarkBeforeDeadlineMs,
      );
    }
    this.#trim();
  }

  #trim(): void {
    const now = this.now();
    for (const cache of this.#caches.values()) cache.trim(now, this.#compacted);
  }
}

/**
 * The first two segments of a key or prefix with their slashes (`/registry/configmaps/` of
 * `/registry/configmaps/ns/name`, `/registry/apps/` of `/registry/apps/deployments/…`), or
 * undefined when it has fewer. A prefix can only match keys with the same head.
 */
function headOf(s: string): string | undefined {
  const first = s.indexOf("/", 1);
  if (first < 0) return undefined;
  const second = s.indexOf("/", first + 1);
  return second < 0 ? undefined : s.slice(0, second + 1);
}
