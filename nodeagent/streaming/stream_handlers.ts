/**
 * The agent's streaming endpoints, at the kubelet's paths:
 * `GET /containerLogs/{namespace}/{pod}/{container}`, `/exec/{namespace}/{pod}/{container}`
 * and `/attach/{namespace}/{pod}/{container}` (WebSocket channel protocols, or SPDY), and
 * `/portForward/{namespace}/{pod}` (SPDY, directly or tunneled in a WebSocket, or the older
 * WebSocket protocol with a channel pair per port). They need a
 * runtime that serves streams (the process runtime); the CRI runtime's streaming server is
 * not reached, and its pods answer 501.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { requestedUpgrade } from "../../shared/http/upgrade_response.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { isStreamingRuntime, type StreamingRuntime } from "../runtime/stream_target.ts";
import { containerLogStream, parseLogOptions } from "./container_logs.ts";
import { parseExecRequest, runExec } from "./exec_session.ts";
import { runAttach } from "./attach_session.ts";
import type { ExecIO } from "./exec_io.ts";
import {
  acceptChannelWebSocket,
  checkWebSocketRequest,
  webSocketResponse,
} from "./websocket_upgrade.ts";
import { acceptSpdyExec } from "./spdy/spdy_exec_io.ts";
import { negotiateStreamProtocol, spdyOverWebSocket, spdyResponse } from "./spdy/spdy_upgrade.ts";
import { dialLocalhost, portForwardStreams } from "./spdy/spdy_port_forward.ts";
import { forwardedPorts, runWebSocketPortForward } from "./websocket_port_forward.ts";
import { type ChannelProtocol, negotiateChannelProtocol } from "./channel_protocol.ts";

const PREFIXES = ["/containerLogs/", "/exec/", "/attach/", "/portForward/"];
/** kubectl 1.31+'s port-forward: SPDY carried in WebSocket binary messages. */
const TUNNELED_PORT_FORWARD = "SPDY/3.1+portforward.k8s.io";

/** Whether `path` is one of the streaming endpoints. */
export function isStreamingPath(path: string): boolean {
  return PREFIXES.some((p) => path.startsWith(p));
}

function notSupported(message: string): StatusError {
  return new StatusError({ code: 501, reason: "NotImplemented", message });
}

function streamingRuntime(runtime: ContainerRuntime): StreamingRuntime {
  if (!isStreamingRuntime(runtime)) {
    throw notSupported(
      `the ${runtime.name} runtime does not serve logs, exec, attach or port-forward through this node agent`,
    );
  }
  return runtime;
}

function flag(q: URLSearchParams, name: string): boolean {
  return q.get(name) === "1" || q.get(name) === "true";
}

/** Accepts an exec or attach session over whichever protocol the client asks for. */
function acceptSession(
  req: Request,
  streams: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean },
  run: (io: ExecIO) => Promise<void>,
): Response {
  if (requestedUpgrade(req.headers) === "spdy/3.1") return acceptSpdyExec(req, streams, run);
  return acceptChannelWebSocket(req, run);
}

/**
 * Serves a streaming request (already authenticated and authorized).
 *
 * @throws {StatusError} for a bad request, an unknown container, an unsupported runtime.
 */
export function serveStreaming(
  req: Request,
  url: URL,
  runtime: ContainerRuntime,
  signal: AbortSignal,
): Response {
  const parts = url.pathname.split("/").filter((p) => p !== "").map(decodeURIComponent);
  const [endpoint, namespace, pod, container] = parts;
  const rt = streamingRuntime(runtime);
  if (endpoint === "portForward" && parts.length === 3) {
    return portForward(req, url, rt, namespace, pod);
  }
  if (parts.length !== 4) throw StatusError.pathNotFound();
  const target = rt.streamTarget(namespace, pod, container);
  if (!target) {
    throw new StatusError({
      code: 404,
      reason: "NotFound",
      message: `container "${container}" in pod "${namespace}/${pod}" not found on this node`,
    });
  }
  const q = url.searchParams;
  switch (endpoint) {
    case "containerLogs": {
      if (req.method !== "GET") {
        throw new StatusError({ code: 405, reason: "MethodNotAllowed", message: "GET only" });
      }
      const opts = parseLogOptions(q, Date.now());
      return new Response(containerLogStream(target, opts, signal, container), {
        headers: { "content-type": "text/plain" },
      });
    }
    case "exec": {
      if (!target.running) throw StatusError.badRequest(`container ${container} is not running`);
      const exec = parseExecRequest(q);
      return acceptSession(req, exec, (io) => runExec(io, target, exec));
    }
    case "attach": {
      const attach = {
        stdin: flag(q, "input"),
        stdout: flag(q, "output"),
        stderr: flag(q, "error"),
        tty: flag(q, "tty"),
      };
      return acceptSession(req, attach, (io) => runAttach(io, target, attach));
    }
  }
  throw StatusError.pathNotFound();
}

/** `/portForward/{namespace}/{pod}`: SPDY, or SPDY tunneled in a WebSocket. */
function portForward(
  req: Request,
  url: URL,
  rt: StreamingRuntime,
  namespace: string,
  name: string,
): Response {
  if (!rt.hasRunningPod(namespace, name)) {
    throw new StatusError({
      code: 404,
      reason: "NotFound",
      message: `pod "${namespace}/${name}" has no running container on this node`,
    });
  }
  const onStream = portForwardStreams({ namespace, name, dial: dialLocalhost });
  if (requestedUpgrade(req.headers) === "websocket") {
    const { key, protocol } = checkWebSocketRequest<string>(
      req,
      (offered) =>
        offered?.split(",").map((p) => p.trim()).includes(TUNNELED_PORT_FORWARD)
          ? TUNNELED_PORT_FORWARD
          : negotiateChannelProtocol(offered),
      "channel.k8s.io",
    );
    if (protocol === TUNNELED_PORT_FORWARD) {
      return webSocketResponse(key, protocol, (ws) => void spdyOverWebSocket(ws, onStream));
    }
    // The older protocol: one channel pair per port named in the query.
    const ports = forwardedPorts(url.searchParams);
    return webSocketResponse(key, protocol, (ws) => {
      runWebSocketPortForward(ws, protocol as ChannelProtocol, ports, dialLocalhost)
        .catch(() => ws.destroy());
    });
  }
  if (requestedUpgrade(req.headers) !== "spdy/3.1") {
    throw StatusError.badRequest("Upgrade request required");
  }
  const protocol = negotiateStreamProtocol(req, ["portforward.k8s.io"]);
  return spdyResponse(protocol, () => {}, onStream);
}
