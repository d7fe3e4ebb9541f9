/**
 * The agent's streaming endpoints, at the kubelet's paths:
 * `GET /containerLogs/{namespace}/{pod}/{container}`, `/exec/{namespace}/{pod}/{container}`
 * and `/attach/{namespace}/{pod}/{container}` (WebSocket channel protocols), and
 * `/portForward/{namespace}/{pod}` (answered 501: port forwarding needs SPDY streams, which
 * this agent does not speak). They need a runtime that serves streams (the process runtime);
 * the CRI runtime's streaming server is not reached, and its containers answer 501.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { isStreamingRuntime, type StreamTarget } from "../runtime/stream_target.ts";
import { containerLogStream, parseLogOptions } from "./container_logs.ts";
import { parseExecRequest, runExec } from "./exec_session.ts";
import { runAttach } from "./attach_session.ts";
import { acceptChannelWebSocket } from "./websocket_upgrade.ts";

const PREFIXES = ["/containerLogs/", "/exec/", "/attach/", "/portForward/"];

/** Whether `path` is one of the streaming endpoints. */
export function isStreamingPath(path: string): boolean {
  return PREFIXES.some((p) => path.startsWith(p));
}

function notSupported(message: string): StatusError {
  return new StatusError({ code: 501, reason: "NotImplemented", message });
}

/** The container a path names, after its endpoint's prefix. */
function targetOf(
  runtime: ContainerRuntime,
  parts: string[],
): { target: StreamTarget; container: string } {
  const [namespace, pod, container] = parts.map(decodeURIComponent);
  if (!isStreamingRuntime(runtime)) {
    throw notSupported(
      `the ${runtime.name} runtime does not serve logs, exec, attach or port-forward through this node agent`,
    );
  }
  const target = runtime.streamTarget(namespace, pod, container);
  if (!target) {
    throw new StatusError({
      code: 404,
      reason: "NotFound",
      message: `container "${container}" in pod "${namespace}/${pod}" not found on this node`,
    });
  }
  return { target, container };
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
  const parts = url.pathname.split("/").filter((p) => p !== "");
  const [endpoint, ...rest] = parts;
  if (endpoint === "portForward") {
    throw notSupported(
      "port forwarding is not supported by this node agent: it needs SPDY streams",
    );
  }
  if (rest.length !== 3) throw StatusError.pathNotFound();
  const { target, container } = targetOf(runtime, rest);
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
      return acceptChannelWebSocket(req, (conn) => runExec(conn, target, exec));
    }
    case "attach": {
      const tty = q.get("tty") === "1" || q.get("tty") === "true";
      const attach = {
        stdout: q.get("output") === "1" || q.get("output") === "true",
        stderr: q.get("error") === "1" || q.get("error") === "true",
        tty,
      };
      return acceptChannelWebSocket(req, (conn) => runAttach(conn, target, attach));
    }
  }
  throw StatusError.pathNotFound();
}
