/**
 * The frame layer of HTTP/2 (RFC 9113 sections 4 to 7): frame types, flags, settings
 * identifiers, error codes and limits, {@link encodeFrame} for peers and tests, and the two
 * kinds of protocol error the connection turns into GOAWAY or RST_STREAM.
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** The client connection preface (RFC 9113 section 3.4). */
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Frame types (RFC 9113 section 6): DATA. */
export const DATA = 0x0;
/** Frame type HEADERS. */
export const HEADERS = 0x1;
/** Frame type PRIORITY. */
export const PRIORITY = 0x2;
/** Frame type RST_STREAM. */
export const RST_STREAM = 0x3;
/** Frame type SETTINGS. */
export const SETTINGS = 0x4;
/** Frame type PUSH_PROMISE. */
export const PUSH_PROMISE = 0x5;
/** Frame type PING. */
export const PING = 0x6;
/** Frame type GOAWAY. */
export const GOAWAY = 0x7;
/** Frame type WINDOW_UPDATE. */
export const WINDOW_UPDATE = 0x8;
/** Frame type CONTINUATION. */
export const CONTINUATION = 0x9;

/** Flags (RFC 9113 section 6): END_STREAM. */
export const END_STREAM = 0x1;
/** Flag ACK (of SETTINGS and PING). */
export const ACK = 0x1;
/** Flag END_HEADERS. */
export const END_HEADERS = 0x4;
/** Flag PADDED. */
export const PADDED = 0x8;
/** Flag PRIORITY (of HEADERS). */
export const PRIORITY_FLAG = 0x20;

/** Settings (RFC 9113 section 6.5.2): SETTINGS_HEADER_TABLE_SIZE. */
export const SETTINGS_HEADER_TABLE_SIZE = 0x1;
/** Setting SETTINGS_ENABLE_PUSH. */
export const SETTINGS_ENABLE_PUSH = 0x2;
/** Setting SETTINGS_MAX_CONCURRENT_STREAMS. */
export const SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
/** Setting SETTINGS_INITIAL_WINDOW_SIZE. */
export const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
/** Setting SETTINGS_MAX_FRAME_SIZE. */
export const SETTINGS_MAX_FRAME_SIZE = 0x5;
/** Setting SETTINGS_MAX_HEADER_LIST_SIZE. */
export const SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

/** Error codes (RFC 9113 section 7). */
export const Http2Error = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
} as const;

/** The initial flow-control window of a stream and of the connection (RFC 9113 section 6.9.2). */
export const DEFAULT_WINDOW = 65_535;
/** The largest flow-control window (RFC 9113 section 6.9.1). */
export const MAX_WINDOW = 2 ** 31 - 1;
/** The largest frame we accept: the protocol's default, which we do not raise. */
export const MAX_FRAME_SIZE = 16_384;

/**
 * One frame as bytes: the 9-byte header (length, type, flags, stream id) and `payload`. For
 * peers and tests that speak HTTP/2 to the server; the connection writes its own frames into
 * its output buffer directly.
 */
export function encodeFrame(
  type: number,
  flags: number,
  id: number,
  payload: Uint8Array = new Uint8Array(0),
): Uint8Array {
  const out = new Uint8Array(9 + payload.length);
  out[0] = payload.length >>> 16;
  out[1] = (payload.length >>> 8) & 0xff;
  out[2] = payload.length & 0xff;
  out[3] = type;
  out[4] = flags;
  new DataView(out.buffer).setUint32(5, id & 0x7fffffff);
  out.set(payload, 9);
  return out;
}

/** A connection error: GOAWAY with `code`, then close. */
export class ConnectionError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** A stream error: RST_STREAM with `code`; the connection goes on. */
export class StreamError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
