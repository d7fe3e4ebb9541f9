/**
 * Accepting a `SPDY/3.1` upgrade (the protocol kubectl before 1.31, and later ones as a
 * fallback, speak for exec, attach and port-forward): the stream protocol negotiated from
 * `X-Stream-Protocol-Version`, the 101, and a {@link SpdySession} over the upgraded socket.
 * A WebSocket can carry a session too (kubectl's tunneled port-forward).
 *
 * @module
 */
import type { Socket } from "node:net";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { UpgradeResponse } from "../../../shared/http/upgrade_response.ts";
import type { WebSocketConn } from "../../../shared/http/websocket_conn.ts";
import { type ByteTransport, SpdySession, type SpdyStream } from "./spdy_session.ts";
import { closeWhenIdle } from "../websocket_upgrade.ts";

/**
 * The protocol to speak: the first of `supported` the client offers in
 * `X-Stream-Protocol-Version` (`fallback` when it offers none).
 *
 * @throws {StatusError} 400 when it offers versions and none of them is supported.
 */
export function negotiateStreamProtocol(
  req: Request,
  supported: readonly string[],
  fallback?: string,
): string {
  const offered = (req.headers.get("x-stream-protocol-version") ?? "")
    .split(",").map((v) => v.trim()).filter(Boolean);
  if (offered.length === 0 && fallback) return fallback;
  const chosen = supported.find((p) => offered.includes(p));
  if (!chosen) {
    throw StatusError.badRequest(
      `unable to upgrade: unable to negotiate protocol: client supports ${
        JSON.stringify(offered)
      }, server supports ${JSON.stringify(supported)}`,
    );
  }
  return chosen;
}

/** A transport over an upgraded socket. */
function socketTransport(socket: Socket): ByteTransport {
  return {
    write(bytes) {
      if (socket.destroyed) return Promise.resolve();
      if (socket.write(bytes)) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => (socket.off("drain", done), socket.off("close", done), resolve());
        socket.on("drain", done);
        socket.on("close", done);
      });
    },
    close: () => socket.end(),
  };
}

/** The 101 answer to a SPDY upgrade; `onStream` gets each stream the client opens. */
export function spdyResponse(
  protocol: string,
  onSession: (session: SpdySession) => void,
  onStream: (stream: SpdyStream) => void,
): Response {
  return new UpgradeResponse(
    { upgrade: "SPDY/3.1", "x-stream-protocol-version": protocol },
    ({ socket, head }) => {
      closeWhenIdle(socket);
      const session = new SpdySession(socketTransport(socket), onStream);
      socket.on("data", (chunk: Uint8Array) => session.receive(chunk));
      socket.on("close", () => session.transportClosed());
      socket.on("error", () => socket.destroy());
      if (head.length) session.receive(head);
      onSession(session);
    },
  );
}

/** A session carried by WebSocket binary messages (kubectl's tunneled port-forward). */
export function spdyOverWebSocket(
  ws: WebSocketConn,
  onStream: (s: SpdyStream) => void,
): SpdySession {
  const session = new SpdySession({
    write: (bytes) => ws.send(bytes, true),
    close: () => ws.close(),
  }, onStream);
  ws.start({
    message: (data) => session.receive(data),
    closed: () => session.transportClosed(),
  });
  return session;
}
