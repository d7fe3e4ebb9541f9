/**
 * Validation of the SETTINGS the client sends (RFC 9113 section 6.5): the frame, and each
 * setting's value. The connection applies the settings it uses.
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import {
  ACK,
  ConnectionError,
  Http2Error,
  MAX_FRAME_SIZE,
  MAX_WINDOW,
  SETTINGS_ENABLE_PUSH,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_FRAME_SIZE,
} from "./http2_frame.ts";

/**
 * Checks a SETTINGS frame's stream and length; returns whether it carries settings to apply
 * (false: an acknowledgement of ours). Throws a {@link ConnectionError} for a bad frame.
 */
export function checkSettingsFrame(flags: number, id: number, payload: Buffer): boolean {
  if (id !== 0) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "SETTINGS on a stream");
  if (flags & ACK) {
    if (payload.length !== 0) {
      throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "SETTINGS ACK with a payload");
    }
    return false;
  }
  if (payload.length % 6 !== 0) {
    throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "SETTINGS length not a multiple of 6");
  }
  return true;
}

/**
 * Checks the value of one setting; throws a {@link ConnectionError} for one out of range.
 * Unknown settings, and those we do not use (HEADER_TABLE_SIZE: our encoder never uses the
 * dynamic table; MAX_CONCURRENT_STREAMS and MAX_HEADER_LIST_SIZE: we open no streams), pass.
 */
export function checkSetting(key: number, value: number): void {
  switch (key) {
    case SETTINGS_ENABLE_PUSH:
      if (value > 1) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "ENABLE_PUSH must be 0 or 1");
      }
      break;
    case SETTINGS_INITIAL_WINDOW_SIZE:
      if (value > MAX_WINDOW) {
        throw new ConnectionError(Http2Error.FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE too large");
      }
      break;
    case SETTINGS_MAX_FRAME_SIZE:
      if (value < MAX_FRAME_SIZE || value > 16_777_215) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "MAX_FRAME_SIZE out of range");
      }
      break;
  }
}
