/**
 * Starts a watch on a cache following the spec's watch table: unset resourceVersion is the
 * current state (consistent) as synthetic ADDED events then changes; `0` the same from the
 * cached state; N the changes after N (410 as an ERROR event when N left the history, 504 when
 * N does not arrive in time). `sendInitialEvents` (WatchList) adds the
 * `k8s.io/initial-events-end` bookmark after the initial events.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { FieldSelector } from "../../shared/selectors/field_selector.ts";
import type { LabelSelector } from "../../shared/selectors/label_selector.ts";
import type { CachedObject, CacheEvent } from "./cached_object.ts";
import { CacheWatcher } from "./cache_watcher.ts";
import type { ChangeFeed } from "./change_feed.ts";
import type { WatchCache } from "./watch_cache.ts";
import type { WatchEventEncoder } from "./watch_event_encoder.ts";

/** What a watch asks for, already parsed and validated. */
export interface WatchRequest {
  /** Keys must start with this (namespace prefix or the resource prefix). */
  prefix: string;
  /** The requested resourceVersion: undefined (unset), 0, or N. */
  resourceVersion: number | undefined;
  labels?: LabelSelector;
  fields?: FieldSelector;
  /** The single object watched (resource path with `watch=true`). */
  name?: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  /** timeoutSeconds; undefined or 0 picks the randomised default. */
  timeoutSeconds?: number;
  apiVersion: string;
  kind: string;
  /** The wire format of the events; JSON lines when absent. */
  encoder?: WatchEventEncoder;
}

/** A started watch, or the Status of an ERROR event to send instead. */
export type StartedWatch =
  | { watcher: CacheWatcher }
  | { error: StatusError };

/**
 * Starts a watch. Throws StatusError 504 (Too large resource version) when a requested
 * revision is not reached within the wait limit.
 */
export async function startWatch(
  feed: ChangeFeed,
  cache: WatchCache,
  req: WatchRequest,
): Promise<StartedWatch> {
  const rv = req.resourceVersion;
  const sendInitial = req.sendInitialEvents ?? (rv === undefined || rv === 0);
  if (rv === undefined) {
    if (sendInitial) await feed.waitFresh();
  } else if (rv > 0 && rv > feed.revision) {
    if (!await feed.waitFor(rv)) {
      throw StatusError.tooLargeResourceVersion(rv, feed.revision);
    }
  }
  if (!cache.ready) {
    const deadline = feed.now() + feed.tuning.resourceVersionWaitMs;
    while (!cache.ready && feed.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (!cache.ready) throw StatusError.tooLargeResourceVersion(rv ?? 0, feed.revision);
  }

  // From here on everything runs without yielding, so no change slips between the state we
  // send and the watcher's registration.
  const matches = matcherOf(req);
  let initial: CachedObject[] | undefined;
  let replay: CacheEvent[] | undefined;
  if (sendInitial) {
    initial = cache.snapshot(req.prefix, matches);
  } else if (rv !== undefined && rv > 0) {
    const since = cache.eventsSince(rv);
    if (!since.ok) {
      return {
        error: StatusError.expired(`too old resource version: ${rv} (${since.oldest})`),
      };
    }
    replay = since.events;
  }
  const now = feed.now();
  const timeout = req.timeoutSeconds && req.timeoutSeconds > 0
    ? req.timeoutSeconds * 1000
    : feed.tuning.minRequestTimeoutSeconds * 1000 * (1 + Math.random());
  const watcher = new CacheWatcher({
    prefix: req.prefix,
    matches,
    bookmarks: req.allowWatchBookmarks,
    bufferSize: feed.tuning.watcherBufferSize,
    bufferBytes: feed.tuning.watcherBufferBytes,
    maxLagMs: feed.tuning.watcherMaxLagMs,
    apiVersion: req.apiVersion,
    kind: req.kind,
    encoder: req.encoder,
    initial,
    initialEventsEnd: req.sendInitialEvents && req.allowWatchBookmarks ? feed.revision : undefined,
    replay,
    deadline: now + timeout,
    now: feed.now,
    onClose: (w) => cache.removeWatcher(w),
  });
  cache.addWatcher(watcher);
  return { watcher };
}

/** The filter of a watch: labels, fields and the watched name. */
function matcherOf(req: WatchRequest): ((o: CachedObject) => boolean) | undefined {
  const labels = req.labels && !req.labels.empty() ? req.labels : undefined;
  const fields = req.fields && !req.fields.empty() ? req.fields : undefined;
  const name = req.name;
  if (!labels && !fields && name === undefined) return undefined;
  return (o) =>
    (name === undefined || o.fields["metadata.name"] === name) &&
    (!labels || labels.matches(o.labels)) &&
    (!fields || fields.matches(o.fields));
}
