/**
 * One watch request served from the cache: a filter, a bounded buffer of encoded events and
 * the chunked body that drains it. The cache offers every event synchronously; offering never
 * blocks and never waits for the client. A watcher whose own buffer overflows (too many events,
 * or too many bytes) is closed at once (the client resumes from its last resourceVersion or
 * lists again), as Kubernetes' cacheWatcher is when its input channel stays full, so a slow
 * client costs neither the writers nor the other watchers anything. Each watcher is judged
 * alone: the connection decides which of its streams may write when it cannot take them all
 * (see `Http2Connection`), and what a watcher writes at a time is bounded, so draining a
 * backlog never copies more than a chunk per watcher.
 *
 * Fan-out is cheap per watcher: an event's bytes are encoded once per wire format and shared
 * (cached on the event). Over HTTP/2 the listener attaches the stream as a push sink
 * ({@link PushSource}), so an event is queued on the connection during the offer itself (no
 * stream read, promise or timer per event); events that queue up while the connection is full
 * are written together as one chunk once it drains. Read as a ReadableStream instead (HTTP/1.1,
 * or anything that does not know push bodies), a watcher waiting for data gets the bytes
 * handed to its reader at once.
 *
 * @module
 */
import type { PushSink, PushSource } from "../../shared/http/push_body.ts";
import { type CachedObject, type CacheEvent, withRevision } from "./cached_object.ts";
import {
  bookmarkObjectJson,
  JSON_WATCH_ENCODER,
  type WatchEventEncoder,
} from "./watch_event_encoder.ts";

/** Most bytes of buffered events written as one chunk. */
const MAX_CHUNK = 64 * 1024;

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
  /**
   * Most bytes of live events buffered before the watcher is closed as too slow; no limit when
   * absent.
   */
  bufferBytes?: number;
  /**
   * Longest a live event may wait in the buffer (ms): a watcher whose oldest buffered event
   * is older when the next one arrives is closed as too slow; no limit when absent. Not
   * counted while initial or replayed events are still being written.
   */
  maxLagMs?: number;
  /** apiVersion and kind of the bookmark objects. */
  apiVersion: string;
  kind: string;
  /** The wire format; JSON lines when absent. */
  encoder?: WatchEventEncoder;
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

/**
 * A watcher fed by a watch cache; its {@link CacheWatcher.stream} is the response body, or,
 * for the listener, the watcher itself as a {@link PushSource}.
 */
export class CacheWatcher implements PushSource {
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

  /** The wire format of this watcher's events. */
  readonly encoder: WatchEventEncoder;

  readonly #matches?: (obj: CachedObject) => boolean;
  readonly #bufferSize: number;
  readonly #bufferBytes: number;
  readonly #maxLagMs: number;
  readonly #now: () => number;
  /** Bytes in {@link #queue}. */
  #queuedBytes = 0;
  readonly #apiVersion: string;
  readonly #kind: string;
  readonly #onClose?: (watcher: CacheWatcher, reason: CloseReason) => void;
  #initial: CachedObject[];
  #initialAt = 0;
  #initialEnd: Uint8Array | undefined;
  #replay: CacheEvent[];
  #replayAt = 0;
  /** Live events not yet handed to the reader (two arrays, swapped, so draining allocates none). */
  #queue: Uint8Array[] = [];
  #spare: Uint8Array[] = [];
  /** When each of {@link #queue}'s events was queued (ms since the epoch). */
  #times: number[] = [];
  #spareTimes: number[] = [];
  #ending = false;
  /** The reader asked for data and got none yet: the next event goes straight to it. */
  #waiting = false;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The connection, once the listener attached it (push mode). */
  #sink: PushSink | undefined;
  /** The sink said it is full: queue until drain(). */
  #congested = false;
  #sinkEnded = false;

  constructor(opts: CacheWatcherOptions) {
    this.prefix = opts.prefix;
    this.bookmarks = opts.bookmarks;
    this.deadline = opts.deadline;
    this.#matches = opts.matches;
    this.#bufferSize = opts.bufferSize;
    this.#bufferBytes = opts.bufferBytes ?? Infinity;
    this.#maxLagMs = opts.maxLagMs ?? Infinity;
    this.#now = opts.now;
    this.#apiVersion = opts.apiVersion;
    this.#kind = opts.kind;
    this.encoder = opts.encoder ?? JSON_WATCH_ENCODER;
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
      start: (controller) => {
        this.#controller = controller;
      },
      pull: () => this.#pull(),
      cancel: () => this.close("client"),
    }, { highWaterMark: 0 });
  }

  /** Live events waiting to be written. */
  get buffered(): number {
    return this.#queue.length;
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
    return eventLine(ev, type, this.encoder);
  }

  /** Queues a BOOKMARK (only if the client asked for them). */
  bookmark(line: Uint8Array): void {
    if (!this.bookmarks || this.closedBy) return;
    this.#push(line);
  }

  /** The encoded BOOKMARK event at `revision` for this watcher's kind, in its format. */
  bookmarkLine(revision: number, initialEventsEnd = false): Uint8Array {
    return this.encoder.encode(
      "BOOKMARK",
      bookmarkObjectJson(this.#apiVersion, this.#kind, revision, initialEventsEnd),
    );
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
      this.#spare = [];
      this.#times = [];
      this.#spareTimes = [];
      this.#queuedBytes = 0;
      this.#initial = [];
      this.#initialEnd = undefined;
      this.#replay = [];
    }
    this.#onClose?.(this, reason);
    if (this.#sink) {
      this.#flushSink();
      return;
    }
    if (this.#waiting) {
      this.#waiting = false;
      this.#pull();
    }
  }

  /** Push mode: the listener's connection; what is ready is written now. */
  attach(sink: PushSink): void {
    if (this.#sink) return;
    this.#sink = sink;
    this.#flushSink();
  }

  /** Push mode: the connection can take more. */
  drain(): void {
    this.#congested = false;
    this.#flushSink();
  }

  /** Push mode: the client went away. */
  cancel(): void {
    this.close("client");
  }

  /** Writes queued chunks until the sink is full; ends the body once closed and empty. */
  #flushSink(): void {
    const sink = this.#sink!;
    if (this.#sinkEnded) return;
    while (!this.#congested) {
      const chunk = this.#take();
      if (!chunk) break;
      this.#congested = !sink.write(chunk);
    }
    // The loop stopped on a full sink or on an empty queue.
    if (this.closedBy && (!this.#ending || !this.#congested)) {
      this.#sinkEnded = true;
      sink.end();
    }
  }

  #push(line: Uint8Array): void {
    const sink = this.#sink;
    if (sink) {
      if (!this.#congested && this.#queue.length === 0) {
        this.#congested = !sink.write(line);
        return;
      }
    } else if (this.#waiting) {
      // Nothing is queued (the reader found nothing): hand the bytes over at once.
      this.#waiting = false;
      this.#controller.enqueue(line);
      return;
    }
    const now = this.#now();
    if (
      this.#queue.length >= this.#bufferSize ||
      this.#queuedBytes + line.length > this.#bufferBytes ||
      (this.#queue.length > 0 && now - this.#times[0] > this.#maxLagMs && this.#liveOnly())
    ) {
      this.close("evicted");
      return;
    }
    this.#queue.push(line);
    this.#times.push(now);
    this.#queuedBytes += line.length;
  }

  /** Whether the initial and replayed events are all written (only live ones are left). */
  #liveOnly(): boolean {
    return this.#initialAt >= this.#initial.length && !this.#initialEnd &&
      this.#replayAt >= this.#replay.length;
  }

  /** Called by the stream when its reader wants data and none is queued in the stream. */
  #pull(): void {
    const chunk = this.#take();
    if (chunk) {
      this.#controller.enqueue(chunk);
      return;
    }
    if (this.closedBy) {
      try {
        this.#controller.close();
      } catch {
        // Already closed or cancelled by the reader.
      }
      return;
    }
    this.#waiting = true;
  }

  /** The next chunk to write: initial events first, then everything buffered. */
  #take(): Uint8Array | undefined {
    if (this.closedBy && !this.#ending) return undefined;
    if (this.#initialAt < this.#initial.length) {
      const parts: Uint8Array[] = [];
      let bytes = 0;
      while (this.#initialAt < this.#initial.length && bytes < 64 * 1024) {
        const obj = this.#initial[this.#initialAt++];
        const line = this.encoder.encode("ADDED", obj.json);
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
    return this.#takeQueued();
  }

  /** Buffered live events as one chunk of at most {@link MAX_CHUNK} bytes (or one event). */
  #takeQueued(): Uint8Array | undefined {
    const parts = this.#queue;
    if (parts.length === 0) return undefined;
    let n = 0;
    let bytes = 0;
    while (n < parts.length && (n === 0 || bytes + parts[n].length <= MAX_CHUNK)) {
      bytes += parts[n++].length;
    }
    this.#queuedBytes -= bytes;
    if (n < parts.length) {
      this.#times.splice(0, n);
      return concat(parts.splice(0, n));
    }
    const chunk = n === 1 ? parts[0] : concat(parts);
    parts.length = 0;
    this.#queue = this.#spare;
    this.#spare = parts;
    const times = this.#times;
    times.length = 0;
    this.#times = this.#spareTimes;
    this.#spareTimes = times;
    return chunk;
  }
}

/**
 * The encoded event of `ev` delivered as `type` in `encoder`'s format, built once per event,
 * type and format, and shared by every watcher.
 */
export function eventLine(
  ev: CacheEvent,
  type: "ADDED" | "MODIFIED" | "DELETED",
  encoder: WatchEventEncoder = JSON_WATCH_ENCODER,
): Uint8Array {
  const lines = ev.lines ??= {};
  const key = encoder === JSON_WATCH_ENCODER ? type : `${encoder.key}\u0000${type}`;
  let line = lines[key];
  if (!line) {
    const obj = type === "DELETED" && ev.type !== "DELETED" && ev.prev
      ? withRevision(ev.prev, ev.revision)
      : ev.object;
    line = encoder.encode(type, obj.json);
    lines[key] = line;
  }
  return line;
}

/** A BOOKMARK event line (JSON): an object of the kind with only its resourceVersion (and the annotation). */
export function bookmarkLine(
  apiVersion: string,
  kind: string,
  revision: number,
  initialEventsEnd = false,
): Uint8Array {
  return JSON_WATCH_ENCODER.encode(
    "BOOKMARK",
    bookmarkObjectJson(apiVersion, kind, revision, initialEventsEnd),
  );
}

/** An ERROR event carrying a Status, in `encoder`'s format (JSON lines by default). */
export function errorLine(
  status: unknown,
  encoder: WatchEventEncoder = JSON_WATCH_ENCODER,
): Uint8Array {
  return encoder.encode("ERROR", JSON.stringify(status));
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
