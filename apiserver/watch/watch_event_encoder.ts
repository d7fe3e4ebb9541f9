/**
 * How watch events are written on the wire. The cache encodes each event once per format and
 * shares the bytes between every watcher that asked for that format, so fan-out costs no
 * serialisation per watcher. JSON lines ({@link JSON_WATCH_ENCODER}) is the default;
 * {@link PROTOBUF_WATCH_ENCODER} writes `;stream=watch` frames, and {@link objectWatchEncoder}
 * builds formats that convert each object first (Table objects), each under its own `key`.
 *
 * An encoder never throws: it runs inside the cache's fan-out, where an exception would cost
 * every other watcher its event. An event that cannot be encoded becomes an ERROR event
 * (500 InternalError) in the same format.
 *
 * @module
 */
import { encodeWatchFrame } from "../../shared/codec/protobuf/mod.ts";
import { StatusError } from "../../shared/errors/status_error.ts";

/** The event types of a watch stream. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** Encodes watch events in one wire format. */
export interface WatchEventEncoder {
  /**
   * Names the format and its options (e.g. `json`, `protobuf`, `table;v1;Object`): encoders
   * with the same key must produce the same bytes, because the bytes are cached per event
   * under it and shared.
   */
  readonly key: string;
  /** One event whose object is the JSON text `objectJson` (an object of the watched kind). */
  encode(type: WatchEventType, objectJson: string): Uint8Array;
}

const encoder = new TextEncoder();

/** JSON lines, `{"type":...,"object":...}\n` (the default). */
export const JSON_WATCH_ENCODER: WatchEventEncoder = Object.freeze({
  key: "json",
  encode(type: WatchEventType, objectJson: string): Uint8Array {
    return encoder.encode(`{"type":"${type}","object":${objectJson}}\n`);
  },
});

/** The wire framing of {@link objectWatchEncoder}: JSON lines or length-prefixed Protobuf frames. */
export type WatchFraming = "json" | "protobuf";

/** Options of {@link objectWatchEncoder}. */
export interface ObjectWatchEncoderOptions {
  /** The format's cache key (see {@link WatchEventEncoder.key}). */
  key: string;
  /** How each event is framed. */
  framing: WatchFraming;
  /**
   * Turns an event's object into what is sent (a Table, say). Not applied to ERROR events,
   * whose object is a Status. Bytes are cached per event under `key`, so it must depend only
   * on its arguments (and the resource, since each cache holds one resource).
   */
  convert?: (type: WatchEventType, object: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * An encoder that parses each event's object, converts it with `convert`, and writes it in
 * `framing`: `JSON.stringify({type, object}) + "\n"`, or a Protobuf watch frame.
 */
export function objectWatchEncoder(opts: ObjectWatchEncoderOptions): WatchEventEncoder {
  const { key, framing, convert } = opts;
  const write = framing === "protobuf"
    ? (type: WatchEventType, object: Record<string, unknown>): Uint8Array =>
      encodeWatchFrame(type, object)
    : (type: WatchEventType, object: Record<string, unknown>): Uint8Array =>
      encoder.encode(JSON.stringify({ type, object }) + "\n");
  return Object.freeze({
    key,
    encode(type: WatchEventType, objectJson: string): Uint8Array {
      try {
        const object = JSON.parse(objectJson) as Record<string, unknown>;
        return write(type, convert && type !== "ERROR" ? convert(type, object) : object);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        const status = StatusError.internal(`encoding a ${type} watch event as ${key}: ${why}`)
          .status as unknown as Record<string, unknown>;
        try {
          return write("ERROR", status);
        } catch {
          // Not even a Status could be written in this format: the event is dropped.
          return new Uint8Array(0);
        }
      }
    },
  });
}

/**
 * Protobuf frames (`application/vnd.kubernetes.protobuf;stream=watch`): a 4-byte big-endian
 * length, then a `meta.v1.WatchEvent` whose object is the enveloped object.
 */
export const PROTOBUF_WATCH_ENCODER: WatchEventEncoder = objectWatchEncoder({
  key: "protobuf",
  framing: "protobuf",
});

/** The object of a BOOKMARK event: only its kind, apiVersion and resourceVersion (and the annotation). */
export function bookmarkObjectJson(
  apiVersion: string,
  kind: string,
  revision: number,
  initialEventsEnd = false,
): string {
  const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { "k8s.io/initial-events-end": "true" };
  return JSON.stringify({ kind, apiVersion, metadata });
}

/**
 * An encoder that converts each event's object (a stored object) with `convert` before `inner`
 * encodes it: a kind served at another version is watched through its stored kind's cache.
 * BOOKMARK objects, already of the served kind, and ERROR Statuses pass unchanged. `version`
 * names the conversion in the cache key (e.g. `autoscaling/v1`).
 */
export function convertingWatchEncoder(
  inner: WatchEventEncoder,
  version: string,
  convert: (object: Record<string, unknown>) => Record<string, unknown>,
): WatchEventEncoder {
  return Object.freeze({
    key: `${version}\u0000${inner.key}`,
    encode(type: WatchEventType, objectJson: string): Uint8Array {
      if (type === "BOOKMARK" || type === "ERROR") return inner.encode(type, objectJson);
      let json: string;
      try {
        json = JSON.stringify(convert(JSON.parse(objectJson)));
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        const status =
          StatusError.internal(`converting a ${type} watch event to ${version}: ${why}`)
            .status;
        return inner.encode("ERROR", JSON.stringify(status));
      }
      return inner.encode(type, json);
    },
  });
}
