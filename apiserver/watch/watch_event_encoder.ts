/**
 * How watch events are written on the wire. The cache encodes each event once per format and
 * shares the bytes between every watcher that asked for that format, so fan-out costs no
 * serialisation per watcher. JSON lines ({@link JSON_WATCH_ENCODER}) is the default; other
 * formats (Protobuf frames, Table objects) implement the same interface with their own `key`.
 *
 * @module
 */

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
