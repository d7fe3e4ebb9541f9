/**
 * Kubernetes' WebSocket channel protocols for exec and attach (k8s.io/apimachinery wsstream
 * and the remotecommand protocol versions): every message starts with its channel (0 stdin,
 * 1 stdout, 2 stderr, 3 error, 4 resize).
 *
 * - `channel.k8s.io`, `v4.channel.k8s.io`: binary messages, the first byte is the channel;
 * - `base64.channel.k8s.io`, `v4.base64.channel.k8s.io`: text messages, the first character
 *   is the channel's digit, the rest base64;
 * - `v5.channel.k8s.io`: as v4, and the client closes a stream (its stdin) with the message
 *   `[255, channel]`.
 *
 * From v4 on the error channel carries a metav1.Status (with the exit code); before, text.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { WebSocketConn } from "../../shared/http/websocket_conn.ts";

/** The protocols served, most preferred first. */
export const CHANNEL_PROTOCOLS = [
  "v5.channel.k8s.io",
  "v4.channel.k8s.io",
  "v4.base64.channel.k8s.io",
  "channel.k8s.io",
  "base64.channel.k8s.io",
] as const;

/** One of {@link CHANNEL_PROTOCOLS}. */
export type ChannelProtocol = typeof CHANNEL_PROTOCOLS[number];

/** The channels. */
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 };

/**
 * The protocol to speak: the first of ours the client offers in `Sec-WebSocket-Protocol`, or
 * undefined when it offers none of them.
 */
export function negotiateChannelProtocol(offered: string | null): ChannelProtocol | undefined {
  const list = (offered ?? "").split(",").map((p) => p.trim());
  return CHANNEL_PROTOCOLS.find((p) => list.includes(p));
}

/** Whether the protocol's error channel carries a Status (v4 and later). */
export function statusOnErrorChannel(p: ChannelProtocol): boolean {
  return p.startsWith("v4.") || p.startsWith("v5.");
}

/** Encodes `data` on `channel` as a message of protocol `p`. */
export function encodeChannelMessage(
  p: ChannelProtocol,
  channel: number,
  data: Uint8Array,
): { data: Uint8Array | string; binary: boolean } {
  if (p.includes("base64")) {
    return { data: String(channel) + Buffer.from(data).toString("base64"), binary: false };
  }
  const out = new Uint8Array(data.length + 1);
  out[0] = channel;
  out.set(data, 1);
  return { data: out, binary: true };
}

/** Decodes a message of protocol `p`; undefined for an empty or malformed one. */
export function decodeChannelMessage(
  p: ChannelProtocol,
  message: Uint8Array,
  binary: boolean,
): { channel: number; data: Uint8Array } | undefined {
  if (message.length === 0) return undefined;
  if (p.includes("base64")) {
    if (binary) return undefined;
    const channel = message[0] - 0x30;
    if (channel < 0 || channel > 9) return undefined;
    const text = new TextDecoder().decode(message.subarray(1));
    return { channel, data: new Uint8Array(Buffer.from(text, "base64")) };
  }
  return { channel: message[0], data: message.subarray(1) };
}

/** A WebSocket speaking a channel protocol. */
export class ChannelConn {
  constructor(readonly ws: WebSocketConn, readonly protocol: ChannelProtocol) {}

  /** Sends `data` on `channel`. */
  send(channel: number, data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const m = encodeChannelMessage(this.protocol, channel, bytes);
    return this.ws.send(m.data, m.binary);
  }
}
