/**
 * The watch verb: `GET <collection>?watch=1`, a single object through
 * `fieldSelector=metadata.name=...`, and the legacy `/watch/` paths. Answers 200 with a
 * chunked body served from the resource's watch cache, in the negotiated format (JSON lines
 * `{"type","object"}`, Protobuf `;stream=watch` frames, or Table objects): the cache encodes
 * each event once per format and every watcher of that format writes the same bytes.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import { pushResponse } from "../../../shared/http/push_body.ts";
import { apiVersionOf } from "../../registry/generic/kind.ts";
import type { WatchCaches } from "../../watch/watch_caches.ts";
import { errorLine } from "../../watch/cache_watcher.ts";
import { convertingWatchEncoder, JSON_WATCH_ENCODER } from "../../watch/watch_event_encoder.ts";
import { convertingWatchStream } from "../../watch/converting_watch_stream.ts";
import { ConvertingStore } from "../../registry/generic/converting_store.ts";
import { startWatch } from "../../watch/start_watch.ts";
import type { ResourceContext } from "../context.ts";
import { parseResourceVersion } from "../../registry/generic/resource_version.ts";
import { parseAccept } from "../negotiation.ts";
import { watchWire } from "../respond.ts";
import { listOptionsOf } from "./list.ts";

const WATCH_HEADERS = {
  "content-type": "application/json",
  "transfer-encoding": "chunked",
  "cache-control": "no-cache, private",
};

/**
 * Whether an Accept header allows a JSON watch stream (`application/json`, with or without
 * `;stream=watch`, or a wildcard). Table and Protobuf-only requests are refused with 406.
 */
export function acceptsJsonWatch(accept: string | null): boolean {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return true;
  return ranges.some((r) =>
    r.params.as === undefined &&
    (r.type === "*" || (r.type === "application" && (r.subtype === "*" || r.subtype === "json")))
  );
}

/** Handles watch, served from the store's cache in `caches` (405 for a store without one). */
export async function handleWatch(ctx: ResourceContext, caches: WatchCaches): Promise<Response> {
  const opts = listOptionsOf(ctx, true);
  const wire = watchWire(ctx);
  const store = ctx.store;
  // An asynchronous conversion runs per watcher, on the stored form's JSON lines.
  const later = store instanceof ConvertingStore && store.convertsAsynchronously
    ? store
    : undefined;
  const encoder = later
    ? JSON_WATCH_ENCODER
    : store instanceof ConvertingStore
    ? convertingWatchEncoder(
      wire.encoder,
      apiVersionOf(store.def),
      (o) => store.toServedNow(o as never),
    )
    : wire.encoder;
  const attached = caches.cacheOf(store);
  if (!attached) throw StatusError.methodNotSupported(ctx.store.groupResource, "watch");
  const { feed, cache } = attached;
  const rvText = opts.resourceVersion;
  const rv = rvText === "" ? undefined : parseResourceVersion(rvText);
  const def = ctx.store.def;
  const started = await startWatch(feed, cache, {
    prefix: ctx.store.listPrefix(ctx.info.namespace),
    resourceVersion: rv,
    labels: opts.labels,
    fields: opts.fields,
    name: ctx.info.legacyWatch && ctx.info.name ? ctx.info.name : undefined,
    allowWatchBookmarks: opts.allowWatchBookmarks,
    sendInitialEvents: opts.sendInitialEvents,
    timeoutSeconds: opts.timeoutSeconds,
    apiVersion: apiVersionOf(def),
    kind: def.kind,
    encoder,
  });
  const headers = new Headers(WATCH_HEADERS);
  headers.set("content-type", wire.contentType);
  for (const w of ctx.warnings) headers.append("Warning", w);
  if ("error" in started) {
    // As Kubernetes: the stream opens, carries one ERROR event with the Status, and ends.
    const line = errorLine(started.error.status, wire.encoder);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(line);
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers });
  }
  const watcher = started.watcher;
  const signal = ctx.conn.signal;
  const onAbort = () => watcher.close("client");
  if (signal.aborted) watcher.close("client");
  else signal.addEventListener("abort", onAbort, { once: true });
  if (later) {
    const body = convertingWatchStream(watcher.stream, {
      convert: (objects, types) => later.toServedEvents(objects, types),
      encoder: wire.encoder,
    });
    return new Response(body, { status: 200, headers });
  }
  return pushResponse(watcher.stream, watcher, { status: 200, headers });
}
