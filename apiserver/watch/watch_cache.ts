/**
 * The watch cache of one resource: its current objects in memory and a ring of recent events
 * covering the history window, fed in strict revision order by the {@link ChangeFeed}. It
 * serves watches (synthetic ADDED events for the current state, or the events after a given
 * revision) and lists, without a storage query per request.
 *
 * @module
 */
import type { ChangeEvent, KeyValue } from "../storage/interface.ts";
import {
  type CachedObject,
  cachedObjectOf,
  type CacheEvent,
  type ObjectCodec,
} from "./cached_object.ts";
import type { CacheWatcher } from "./cache_watcher.ts";

/** Limits of a cache's history ring. */
export interface HistoryLimits {
  /** Events older than this (ms) leave the ring. */
  windowMs: number;
  /** Most events kept, whatever their age. */
  maxEvents: number;
}

/** The answer to "events after revision N". */
export type EventsSince =
  | { ok: true; events: CacheEvent[] }
  | { ok: false; oldest: number };

/** The cache of one resource (one storage key prefix). */
export class WatchCache {
  /** Every key of this resource starts with it. */
  readonly prefix: string;
  readonly codec: ObjectCodec;
  readonly #objects = new Map<string, CachedObject>();
  #ring: CacheEvent[] = [];
  #ringHead = 0;
  /** The ring holds every event of this resource with a revision above this. */
  #historyStart = 0;
  readonly #watchers = new Set<CacheWatcher>();
  readonly #limits: HistoryLimits;
  /** Changes held back while the initial list of a late-added cache is read. */
  #loading: ChangeEvent[] | undefined;

  constructor(prefix: string, codec: ObjectCodec, limits: HistoryLimits) {
    this.prefix = prefix;
    this.codec = codec;
    this.#limits = limits;
  }

  /** Whether the cache holds its resource's objects (false while its first list is read). */
  get ready(): boolean {
    return this.#loading === undefined;
  }

  /** Number of cached objects. */
  get size(): number {
    return this.#objects.size;
  }

  /** Number of events in the history ring. */
  get historySize(): number {
    return this.#ring.length - this.#ringHead;
  }

  /** Revision above which the ring is complete (a watch from an older one gets 410). */
  get historyStart(): number {
    return this.#historyStart;
  }

  /** The open watchers. */
  get watchers(): ReadonlySet<CacheWatcher> {
    return this.#watchers;
  }

  /** Marks the cache as loading: changes are held until {@link WatchCache.reset}. */
  beginLoading(): void {
    this.#loading ??= [];
  }

  /**
   * Replaces the contents with a list read at `revision`; the ring restarts there. Open
   * watchers are closed (their clients resume or relist). Changes held while loading that are
   * newer than `revision` are applied afterwards.
   */
  reset(items: KeyValue[], revision: number, now: number): void {
    for (const w of [...this.#watchers]) w.close("reset");
    this.#objects.clear();
    for (const kv of items) {
      this.#objects.set(kv.key, cachedObjectOf(this.codec, kv.key, kv.value, kv.revision));
    }
    this.#ring = [];
    this.#ringHead = 0;
    this.#historyStart = revision;
    const held = this.#loading ?? [];
    this.#loading = undefined;
    for (const ev of held) if (ev.revision > revision) this.apply(ev, now);
  }

  /** Applies one committed change (in revision order) and offers it to every watcher. */
  apply(change: ChangeEvent, now: number): void {
    if (this.#loading) {
      this.#loading.push(change);
      return;
    }
    const prev = this.#objects.get(change.key);
    let object: CachedObject;
    try {
      object = cachedObjectOf(
        this.codec,
        change.key,
        change.value,
        change.revision,
        change.decoded,
      );
    } catch {
      // A value that is not an object (never written by the store): skip it, keep order.
      return;
    }
    let type = change.type;
    if (type === "DELETED") {
      this.#objects.delete(change.key);
    } else {
      this.#objects.set(change.key, object);
      if (type === "MODIFIED" && !prev) type = "ADDED";
    }
    const ev: CacheEvent = { type, key: change.key, revision: change.revision, time: now, object };
    if (prev) ev.prev = prev;
    if (type === "DELETED" && !prev) return;
    this.#ring.push(ev);
    for (const w of this.#watchers) w.offer(ev);
    if (this.#ring.length - this.#ringHead > this.#limits.maxEvents) this.#dropOldest(1);
  }

  /**
   * Drops history that is older than the window, beyond the capacity, or at or below the
   * storage's compacted revision; forgets encoded lines of events older than a few seconds.
   */
  trim(now: number, compacted: number): void {
    const cutoff = now - this.#limits.windowMs;
    let n = 0;
    for (let i = this.#ringHead; i < this.#ring.length; i++) {
      const ev = this.#ring[i];
      if (ev.time >= cutoff && ev.revision > compacted) break;
      n++;
    }
    if (n > 0) this.#dropOldest(n);
    if (compacted > this.#historyStart) this.#historyStart = compacted;
    const stale = now - 10_000;
    for (let i = this.#ringHead; i < this.#ring.length; i++) {
      const ev = this.#ring[i];
      if (ev.time >= stale) break;
      ev.lines = undefined;
    }
  }

  /** Events with a revision above `revision`, or the oldest servable revision if it is gone. */
  eventsSince(revision: number): EventsSince {
    if (revision < this.#historyStart) return { ok: false, oldest: this.#historyStart };
    let lo = this.#ringHead;
    let hi = this.#ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ring[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return { ok: true, events: this.#ring.slice(lo) };
  }

  /** The current objects whose keys start with `prefix` and pass `filter`, in key order. */
  snapshot(prefix: string, filter?: (obj: CachedObject) => boolean): CachedObject[] {
    const out: CachedObject[] = [];
    for (const obj of this.#objects.values()) {
      if (!obj.key.startsWith(prefix)) continue;
      if (filter && !filter(obj)) continue;
      out.push(obj);
    }
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out;
  }

  /** One object by key. */
  get(key: string): CachedObject | undefined {
    return this.#objects.get(key);
  }

  /** Registers a watcher; it leaves the set when it closes. */
  addWatcher(w: CacheWatcher): void {
    if (!w.closed) this.#watchers.add(w);
  }

  /** Unregisters a watcher. */
  removeWatcher(w: CacheWatcher): void {
    this.#watchers.delete(w);
  }

  /** Sends due bookmarks at `revision` and the one shortly before each deadline. */
  bookmarkTick(revision: number, now: number, intervalMs: number, beforeDeadlineMs: number): void {
    // One encoded bookmark per wire format, shared.
    let lines: Map<string, Uint8Array> | undefined;
    for (const w of this.#watchers) {
      if (!w.bookmarks) continue;
      const nearDeadline = !w.deadlineBookmarkSent && now >= w.deadline - beforeDeadlineMs;
      if (w.nextBookmark === 0) w.nextBookmark = now + intervalMs;
      if (now < w.nextBookmark && !nearDeadline) continue;
      if (nearDeadline) w.deadlineBookmarkSent = true;
      w.nextBookmark = now + intervalMs;
      lines ??= new Map();
      let line = lines.get(w.encoder.key);
      if (!line) {
        line = w.bookmarkLine(revision);
        lines.set(w.encoder.key, line);
      }
      w.bookmark(line);
    }
  }

  /** Closes every watcher. */
  closeAll(reason: "shutdown" | "reset"): void {
    for (const w of [...this.#watchers]) w.close(reason);
  }

  #dropOldest(n: number): void {
    const last = this.#ring[this.#ringHead + n - 1];
    this.#historyStart = Math.max(this.#historyStart, last.revision);
    this.#ringHead += n;
    if (this.#ringHead > 1024 && this.#ringHead * 2 > this.#ring.length) {
      this.#ring = this.#ring.slice(this.#ringHead);
      this.#ringHead = 0;
    }
  }
}
