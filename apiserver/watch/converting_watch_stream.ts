/**
 * A watch of a kind whose conversion answers Promises (a custom resource version converted by
 * a webhook). The watch cache's fan-out is synchronous, so such a watcher takes the stored
 * form's JSON lines from the cache and converts them here, per watcher: the objects of each
 * chunk the watcher hands over (one event, or a backlog of them) go to the converter in one
 * batch, then every event is written in the watcher's own format. A failed conversion ends
 * the stream with an ERROR event carrying the Status, so the client lists again rather than
 * missing an event; a conversion too slow for the events overflows the cache watcher's
 * bounded buffer, which closes it, as any slow client is.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { WatchEventEncoder, WatchEventType } from "./watch_event_encoder.ts";

/** Options of {@link convertingWatchStream}. */
export interface ConvertingWatchStreamOptions {
  /**
   * Converts stored objects to the served form, in order (one call per chunk); `types` are
   * their events' types.
   */
  convert(objects: KubeObject[], types: WatchEventType[]): Promise<KubeObject[]>;
  /** The wire format of the converted events. */
  encoder: WatchEventEncoder;
}

interface WatchLine {
  type: WatchEventType;
  object: Record<string, unknown>;
}

/**
 * The events of `source` (JSON lines `{"type","object"}` of stored objects) converted and
 * encoded with `opts.encoder`. BOOKMARK objects (already of the served kind) and ERROR
 * Statuses pass unconverted. Cancelling the result cancels `source`.
 */
export function convertingWatchStream(
  source: ReadableStream<Uint8Array>,
  opts: ConvertingWatchStreamOptions,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let partial = "";
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      const text = partial + decoder.decode(chunk, { stream: true });
      const cut = text.lastIndexOf("\n");
      partial = text.slice(cut + 1);
      if (cut < 0) return;
      const lines = text.slice(0, cut).split("\n").filter((l) => l !== "");
      const events = lines.map((l) => JSON.parse(l) as WatchLine);
      try {
        controller.enqueue(await convertedChunk(events, opts));
      } catch (err) {
        controller.enqueue(opts.encoder.encode("ERROR", JSON.stringify(errorStatus(err))));
        controller.terminate();
      }
    },
  });
  return source.pipeThrough(transform);
}

/** The events of one chunk, their objects converted in one batch, encoded as one chunk. */
async function convertedChunk(
  events: WatchLine[],
  opts: ConvertingWatchStreamOptions,
): Promise<Uint8Array> {
  const converts = (e: WatchLine) => e.type !== "BOOKMARK" && e.type !== "ERROR";
  const converted = events.filter(converts);
  const stored = converted.map((e) => e.object as unknown as KubeObject);
  const served = stored.length > 0 ? await opts.convert(stored, converted.map((e) => e.type)) : [];
  let next = 0;
  const parts: Uint8Array[] = [];
  for (const e of events) {
    const object = converts(e) ? served[next++] : e.object;
    parts.push(opts.encoder.encode(e.type, JSON.stringify(object)));
  }
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The Status of a failed conversion (its own, or a 500 naming the cause). */
function errorStatus(err: unknown): unknown {
  if (err instanceof StatusError) return err.status;
  const why = err instanceof Error ? err.message : String(err);
  return StatusError.internal(`converting a watch event: ${why}`).status;
}
