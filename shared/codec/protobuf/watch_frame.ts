/**
 * The Protobuf watch stream (`application/vnd.kubernetes.protobuf;stream=watch`): each frame is a
 * 4-byte big-endian length followed by a bare `meta.v1.WatchEvent` message (no magic, no
 * envelope: kube-apiserver writes events with the raw stream serializer), whose
 * `object.raw` holds the enveloped object (`k8s\0` + `runtime.Unknown`).
 *
 * @module
 */
import { decodeObject, encodeObject } from "./envelope.ts";
import { decodeMessage } from "./decode_message.ts";
import { encodeMessage } from "./encode_message.ts";
import { ProtobufError } from "./protobuf_error.ts";

/** A decoded watch event. */
export interface WatchEventJson {
  /** `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`. */
  type: string;
  /** The object (a Status for `ERROR`), with apiVersion and kind. */
  object: Record<string, unknown>;
}

/** Default upper bound of one frame, beyond which the stream is treated as corrupt. */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Encodes the bare WatchEvent message (without the length prefix) of `type` and `obj`. */
export function encodeWatchEvent(
  type: string,
  obj: Record<string, unknown>,
): Uint8Array<ArrayBuffer> {
  return encodeMessage("meta.v1.WatchEvent", { type, object: encodeObject(obj) });
}

/** Encodes one length-prefixed watch frame for `type` and `obj`. */
export function encodeWatchFrame(
  type: string,
  obj: Record<string, unknown>,
): Uint8Array<ArrayBuffer> {
  const event = encodeWatchEvent(type, obj);
  const frame = new Uint8Array(4 + event.length);
  new DataView(frame.buffer).setUint32(0, event.length, false);
  frame.set(event, 4);
  return frame;
}

/** Decodes a bare WatchEvent message (one frame without its length prefix). */
export function decodeWatchEvent(bytes: Uint8Array): WatchEventJson {
  const e = decodeMessage("meta.v1.WatchEvent", bytes, decodeObject);
  const object = e.object;
  if (typeof e.type !== "string" || typeof object !== "object" || object === null) {
    throw new ProtobufError("Malformed", "watch event without a type or an object");
  }
  return { type: e.type, object: object as Record<string, unknown> };
}

/**
 * Splits a Protobuf watch stream into events. Feed it chunks as they arrive with
 * {@link WatchFrameDecoder.push}; each call returns the events completed by that chunk.
 */
export class WatchFrameDecoder {
  #buf: Uint8Array = new Uint8Array(0);
  readonly #maxFrameBytes: number;

  /** Creates a decoder that rejects frames longer than `maxFrameBytes`. */
  constructor(maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Appends `chunk` and returns every event now complete. Throws a `ProtobufError` on bad data. */
  push(chunk: Uint8Array): WatchEventJson[] {
    if (this.#buf.length === 0) this.#buf = chunk;
    else {
      const joined = new Uint8Array(this.#buf.length + chunk.length);
      joined.set(this.#buf);
      joined.set(chunk, this.#buf.length);
      this.#buf = joined;
    }
    const events: WatchEventJson[] = [];
    let pos = 0;
    const buf = this.#buf;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    while (buf.length - pos >= 4) {
      const len = view.getUint32(pos, false);
      if (len > this.#maxFrameBytes) {
        throw new ProtobufError(
          "Malformed",
          `watch frame of ${len} bytes exceeds ${this.#maxFrameBytes}`,
        );
      }
      if (buf.length - pos - 4 < len) break;
      events.push(decodeWatchEvent(buf.subarray(pos + 4, pos + 4 + len)));
      pos += 4 + len;
    }
    this.#buf = pos === buf.length ? new Uint8Array(0) : buf.slice(pos);
    return events;
  }

  /** Bytes received that do not yet form a complete frame. */
  get pending(): number {
    return this.#buf.length;
  }

  /** Ends the stream; throws `Malformed` when it stopped in the middle of a frame. */
  end(): void {
    if (this.#buf.length > 0) {
      throw new ProtobufError(
        "Malformed",
        `watch stream ended inside a frame (${this.#buf.length} bytes left)`,
      );
    }
  }
}

/** A TransformStream from the bytes of a Protobuf watch stream to its events. */
export function watchFrameDecoderStream(
  maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
): TransformStream<Uint8Array, WatchEventJson> {
  const decoder = new WatchFrameDecoder(maxFrameBytes);
  return new TransformStream({
    transform(chunk, controller) {
      for (const e of decoder.push(chunk)) controller.enqueue(e);
    },
    flush() {
      decoder.end();
    },
  });
}
