/**
 * Accepting a WebSocket upgrade for a channel protocol (exec, attach): the handshake's
 * checks (RFC 6455 section 4.2), the subprotocol negotiated from the client's offer, and the
 * 101 response whose upgraded socket becomes a {@link ChannelConn}.
 *
 * @module
 */
import type { Socket } from "node:net";
import { StatusError } from "../../shared/errors/status_error.ts";
import { requestedUpgrade, UpgradeResponse } from "../../shared/http/upgrade_response.ts";
import { WebSocketConn } from "../../shared/http/websocket_conn.ts";
import { websocketAccept } from "../../shared/http/websocket_frame.ts";
import { ChannelConn, type ChannelProtocol, negotiateChannelProtocol } from "./channel_protocol.ts";
import { channelExecIO } from "./channel_exec_io.ts";
import type { ExecIO } from "./exec_io.ts";

/**
 * Checks a WebSocket handshake request; returns its key and the protocol to speak among
 * `protocols` (`fallback` when the client offers none; without one, offering none is refused).
 *
 * @throws {StatusError} 400 when it is not a WebSocket upgrade or offers no protocol we speak.
 */
export function checkWebSocketRequest<P extends string>(
  req: Request,
  negotiate: (offered: string | null) => P | undefined,
  fallback?: P,
): { key: string; protocol: P } {
  if (requestedUpgrade(req.headers) !== "websocket") {
    throw StatusError.badRequest("Upgrade request required");
  }
  if (req.method !== "GET") {
    throw StatusError.badRequest("a WebSocket upgrade must be a GET request");
  }
  const key = req.headers.get("sec-websocket-key") ?? "";
  if (!/^[A-Za-z0-9+/]{22}==$/.test(key)) {
    throw StatusError.badRequest("missing or malformed Sec-WebSocket-Key");
  }
  if (req.headers.get("sec-websocket-version") !== "13") {
    throw StatusError.badRequest("unsupported Sec-WebSocket-Version (13 is required)");
  }
  const offered = req.headers.get("sec-websocket-protocol");
  const protocol = offered ? negotiate(offered) : fallback;
  if (!protocol) {
    throw StatusError.badRequest(
      `none of the offered WebSocket subprotocols is supported: ${offered}`,
    );
  }
  return { key, protocol };
}

/** The kubelet's default `streamingConnectionIdleTimeout`. */
export const STREAMING_IDLE_TIMEOUT_MS = 4 * 60 * 60 * 1000;

/** Ends a streaming connection on which nothing moved for the idle timeout. */
export function closeWhenIdle(socket: Socket): void {
  socket.setTimeout(STREAMING_IDLE_TIMEOUT_MS, () => socket.destroy());
}

/** The 101 answer to a WebSocket handshake; `start` gets the open WebSocket. */
export function webSocketResponse(
  key: string,
  protocol: string,
  start: (ws: WebSocketConn) => void,
): Response {
  return new UpgradeResponse(
    {
      upgrade: "websocket",
      "sec-websocket-accept": websocketAccept(key),
      "sec-websocket-protocol": protocol,
    },
    ({ socket, head }) => {
      closeWhenIdle(socket);
      start(new WebSocketConn(socket, head));
    },
  );
}

/**
 * Accepts a channel-protocol WebSocket (exec, attach); `run` drives the session.
 *
 * @throws {StatusError} 400 for a request that is not an acceptable handshake.
 */
export function acceptChannelWebSocket(
  req: Request,
  run: (io: ExecIO) => Promise<void>,
): Response {
  const { key, protocol } = checkWebSocketRequest<ChannelProtocol>(
    req,
    negotiateChannelProtocol,
    "channel.k8s.io",
  );
  return webSocketResponse(key, protocol, (ws) => {
    run(channelExecIO(new ChannelConn(ws, protocol))).catch(() => ws.destroy());
  });
}
