/**
 * Connection upgrades (RFC 9110 section 7.8): a handler answers a request carrying
 * `Connection: Upgrade` with an {@link UpgradeResponse}; the HTTP/1.1 connection then writes
 * `101 Switching Protocols` with the response's header fields and hands its socket, and the
 * bytes that arrived after the request head, to the response's `onUpgrade`. The connection
 * stops reading requests from that socket; the server still closes it on shutdown.
 *
 * HTTP/2 has no upgrades: such a response on an HTTP/2 stream is answered 400.
 *
 * @module
 */
import type { Socket } from "node:net";

/** The connection after its 101: the raw socket and what the client sent after its head. */
export interface UpgradedConnection {
  /** The socket, flowing; the new owner reads, writes and ends it. */
  readonly socket: Socket;
  /** Bytes received after the request head (the first bytes of the new protocol). */
  readonly head: Uint8Array;
}

/** Takes over an upgraded connection. */
export type UpgradeCallback = (conn: UpgradedConnection) => void;

/**
 * A Response that switches protocols. A fetch Response cannot be made with status 101, so it
 * is made with 200 and then reports 101; the connection writes 101 with its header fields (which should include `Upgrade`, and the
 * new protocol's fields such as `Sec-WebSocket-Accept`; `Connection: Upgrade` is added).
 */
export class UpgradeResponse extends Response {
  /** Called with the socket once the 101 is written. */
  readonly onUpgrade: UpgradeCallback;

  constructor(headers: HeadersInit, onUpgrade: UpgradeCallback) {
    super(null, { status: 200, headers });
    this.onUpgrade = onUpgrade;
    // Request logs, metrics and audit events see the status the client gets.
    Object.defineProperty(this, "status", { value: 101 });
  }
}

/** The upgrade a response asks for, if it is an {@link UpgradeResponse}. */
export function upgradeOf(response: Response): UpgradeCallback | undefined {
  return response instanceof UpgradeResponse ? response.onUpgrade : undefined;
}

/**
 * Whether the request asks to upgrade its connection (`Connection: upgrade` with an
 * `Upgrade` field), and to what (the Upgrade field's value, lower case), or undefined.
 */
export function requestedUpgrade(headers: Headers): string | undefined {
  const connection = headers.get("connection");
  const upgrade = headers.get("upgrade");
  if (!connection || !upgrade) return undefined;
  const tokens = connection.toLowerCase().split(",").map((t) => t.trim());
  return tokens.includes("upgrade") ? upgrade.trim().toLowerCase() : undefined;
}
