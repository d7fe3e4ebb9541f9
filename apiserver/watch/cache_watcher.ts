/**
 * One watch request served from the cache: a filter, a bounded buffer of encoded events and
 * the chunked body that drains it. The cache offers every event synchronously; offering never
 * blocks and never waits for the client. A watcher whose buffer overflows is closed at once
 * (the client resumes from its last resourceVersion or lists again), so a slow client costs
 * neither the writers nor the other watchers anything.
 *
 * @module
 */
import { type CachedObject, type CacheEvent, withRevision } from "./cached_object.ts";

const encoder = new TextEncoder();

/** Why a watcher ended. */
export type CloseReason = "timeout" | "evicted" | "client" | "shutdown" | "reset" | "error";

/** Options of a {@link CacheWatcher}. */
export interface CacheWatcherOptions {
  /** Keys must start with this (the namespace's prefix, or the resource's). */
  prefix: string;
  /** The label, field and name filter; absent matches everything. */
  matches?: (obj: CachedObject) => boolean;
  /** Whether the client asked for BOOKMARK events. */
  bookmarks: boolean;
  /** Most live events buffered before the watcher is closed as too slow. */
  bufferSize: number;
  /** apiVersion and kind of the bookmark objects. */
  apiVersion: string;
  kind: string;
  /** Objects sent first as synthetic ADDED events (already filtered, in key order). */
  initial?: CachedObject[];
  /** When set, a `k8s.io/initial-events-end` bookmark at this revision follows the initial events. */
  initialEventsEnd?: number;
  /** Past events (from the history ring) sent before live ones, filtered as live ones are. */
  replay?: CacheEvent[];
  /** When the stream ends (ms since the epoch). */
  deadline: number;
  /** Clock (ms since the epoch). */
  now: () => number;
  /** Called once when the watcher ends, for whatever reason. */
  onClose?: (watcher: CacheWatcher, reason: CloseReason) => void;
}

/** A watcher fed by a watch cache; its {@link CacheWatcher.stream} is the response body. */
export class CacheWatcher {
  /** The response body: JSON lines, one event each. */
  readonly stream: ReadableStream<Uint8Array>;
  readonly prefix: string;
  readonly bookmarks: boolean;
  readonly deadline: number;
  /** When the next periodic bookmark is due (ms since the epoch). */
  nextBookmark = 0;
  /** Whether the bookmark shortly before the deadline was sent. */
  deadlineBookmarkSent = false;
  /** Why it ended, once it has. */
  closedBy: CloseReason | undefined;

  readonly #matches?: (obj: CachedObject) => boolean;
  readonly #bufferSize: number;
  readonly #apiVersion: string;
  readonly #kind: string;
  readonly #onClose?: (watcher: CacheWatcher, reason: CloseReason) => void;
  #initial: CachedObject[];
  #initialAt = 0;
  #initialEnd: Uint8Array | undefined;
  #replay: CacheEvent[];
  #replayAt = 0;
  #queue: Uint8Array[] = [];
  #head = 0;
  #ending = false;
  #wake: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: CacheWatcherOptions) {
    this.prefix = opts.prefix;
    this.bookmarks = opts.bookmarks;
    this.deadline = opts.deadline;
    this.#matches = opts.matches;
    this.#bufferSize = opts.bufferSize;
    this.#apiVersion = opts.apiVersion;
    this.#kind = opts.kind;
    this.#onClose = opts.onClose;
    this.#initial = opts.initial ?? [];
    this.#replay = opts.replay ?? [];
    if (opts.initialEventsEnd !== undefined) {
      this.#initialEnd = this.bookmarkLine(opts.initialEventsEnd, true);
    }
    this.#timer = setTimeout(
      () => this.close("timeout"),
      Math.max(0, opts.deadline - opts.now()),
    );
    this.stream = new ReadableStream<Uint8Array>({
      pull: (controller) => this.#pull(controller),
      cancel: () => this.close("client"),
    }, { highWaterMark: 0 });
  }

  /** Live events waiting to be written. */
  get buffered(): number {
    return this.#queue.length - this.#head;
  }

  /** Whether the watcher has ended (or is ending). */
  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /** Whether an object passes the watcher's filter (namespace, labels, fields, name). */
  matches(obj: CachedObject): boolean {
    return obj.key.startsWith(this.prefix) && (!this.#matches || this.#matches(obj));
  }

  /**
   * Offers a committed change. An object that starts matching arrives as ADDED, one that
   * stops matching as DELETED (its previous state at the event's revision), as Kubernetes'
   * cache watcher does.
   */
  offer(ev: CacheEvent): void {
    if (this.closedBy) return;
    const line = this.#lineFor(ev);
    if (line) this.#push(line);
  }

  #lineFor(ev: CacheEvent): Uint8Array | undefined {
    if (!ev.key.startsWith(this.prefix)) return undefined;
    const cur = ev.type !== "DELETED" && (!this.#matches || this.#matches(ev.object));
    const old = ev.prev !== undefined && (!this.#matches || this.#matches(ev.prev));
    let type: "ADDED" | "MODIFIED" | "DELETED";
    if (cur) type = old ? "MODIFIED" : "ADDED";
    else if (old) type = "DELETED";
    else return undefined;
    return eventLine(ev, type);
  }

  /** Queues a BOOKMARK (only if the client asked for them). */
  bookmark(line: Uint8Array): void {
    if (!this.bookmarks || this.closedBy) return;
    this.#push(line);
  }

  /** The encoded BOOKMARK event at `revision` for this watcher's kind. */
  bookmarkLine(revision: number, initialEventsEnd = false): Uint8Array {
    return bookmarkLine(this.#apiVersion, this.#kind, revision, initialEventsEnd);
  }

  /**
   * Ends the watcher. `timeout` ends the stream after what is buffered; every other reason
   * drops the buffer and ends at once.
   */
  close(reason: CloseReason): void {
    if (this.closedBy) return;
    this.closedBy = reason;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (reason === "timeout") {
      this.#ending = true;
    } else {
      this.#queue = [];
      this.#head = 0;
      this.#initial = [];
      this.#initialEnd = undefined;
      this.#replay = [];
    }
    this.#onClose?.(this, reason);
    this.#wake?.();
  }

  #push(line: Uint8Array): void {
    if (this.#queue.length - this.#head >= this.#bufferSize) {
      this.close("evicted");
      return;
    }
    this.#queue.push(line);
    const wake = this.#wake;
    if (wake) {
      this.#wake = undefined;
      wake();
    }
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      const chunk = this.#take();
      if (chunk) {
        controller.enqueue(chunk);
        return;
      }
      if (this.closedBy) {
        controller.close();
        return;
      }
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
  }

  /** The next chunk to write: initial events first, then everything buffered. */
  #take(): Uint8Array | undefined {
    if (this.closedBy && !this.#ending) return undefined;
    if (this.#initialAt < this.#initial.length) {
      const parts: Uint8Array[] = [];
      let bytes = 0;
      while (this.#initialAt < this.#initial.length && bytes < 64 * 1024) {
        const obj = this.#initial[this.#initialAt++];
        const line = encoder.encode(`{"type":"ADDED","object":${obj.json}}\n`);
        parts.push(line);
        bytes += line.length;
      }
      if (this.#initialAt >= this.#initial.length) this.#initial = [];
      return concat(parts);
    }
    if (this.#initialEnd) {
      const line = this.#initialEnd;
      this.#initialEnd = undefined;
      return line;
    }
    if (this.#replayAt < this.#replay.length) {
      const parts: Uint8Array[] = [];
      let bytes = 0;
      while (this.#replayAt < this.#replay.length && bytes < 64 * 1024) {
        const line = this.#lineFor(this.#replay[this.#replayAt++]);
        if (!line) continue;
        parts.push(line);
        bytes += line.length;
      }
      if (this.#replayAt >= this.#replay.length) this.#replay = [];
      if (parts.length > 0) return concat(parts);
    }
    const n = this.#queue.length - this.#head;
    if (n === 0) return undefined;
    const parts = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    return parts.length === 1 ? parts[0] : concat(parts);
  }
}

/** The encoded event line of `ev` delivered as `type`, built once and shared. */
export function eventLine(ev: CacheEvent, type: "ADDED" | "MODIFIED" | "DELETED"): Uint8Array {
  ev.lines ??= {};
  let line = ev.lines[type];
  if (!line) {
    const obj = type === "DELETED" && ev.type !== "DELETED" && ev.prev
      ? withRevision(ev.prev, ev.revision)
      : ev.object;
    line = encoder.encode(`{"type":"${type}","object":${obj.json}}\n`);
    ev.lines[type] = line;
  }
  return line;
}

/** A BOOKMARK event line: an object of the kind with only its resourceVersion (and the annotation). */
export function bookmarkLine(
  apiVersion: string,
  kind: string,
  revision: number,
  initialEventsEnd = false,
): Uint8Array {
  const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { "k8s.io/initial-events-end": "true" };
  return encoder.encode(
    JSON.stringify({ type: "BOOKMARK", object: { kind, apiVersion, metadata } }) + "\n",
  );
}

/** An ERROR event line carrying a Status. */
export function errorLine(status: unknown): Uint8Array {
  return encoder.encode(JSON.stringify({ type: "ERROR", object: status }) + "\n");
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
