/**
 * The agent's HTTPS server (`--port`, default 10250): `POST /checkpoint/{ns}/{pod}/{container}`,
 * `GET /healthz`, the statistics endpoints (stats_endpoints.ts) and the streaming endpoints
 * (`/containerLogs`, `/exec`, `/attach`, `/portForward`, see {@link serveStreaming}). Every
 * request is authenticated and authorized first, on the node subresource the kubelet maps its
 * path to (`proxy` for the streaming endpoints).
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import { type ConnInfo, type HttpsServer, serveHttps } from "../../shared/http/https_server.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { type CheckpointDeps, handleCheckpoint } from "../checkpoint/handle_checkpoint.ts";
import type { RequestAuthenticator, RequestAuthorizer } from "./request_auth.ts";
import {
  nodeSubresourceFor,
  serveStats,
  type StatsEndpointDeps,
} from "../stats/stats_endpoints.ts";
import { isStreamingPath, serveStreaming } from "../streaming/stream_handlers.ts";

/** Options of {@link startAgentServer}. */
export interface AgentServerOptions {
  address: string;
  port: number;
  certPem: string;
  keyPem: string;
  authenticator: RequestAuthenticator;
  authorizer: RequestAuthorizer;
  /** Checkpoint dependencies other than authentication and authorization. */
  checkpoint: Omit<CheckpointDeps, "authenticate" | "authorize">;
  /** Problems that make the agent unhealthy (empty when healthy). */
  health: () => Promise<string[]>;
  /** Serves `/metrics`, `/metrics/resource` and `/stats/summary` when given. */
  stats?: StatsEndpointDeps;
  logger?: Logger;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Starts the server; resolves once it listens. */
export function startAgentServer(o: AgentServerOptions): Promise<HttpsServer> {
  const handler = async (req: Request, conn: ConnInfo): Promise<Response> => {
    const path = new URL(req.url).pathname;
    if (path.startsWith("/checkpoint/") || path === "/checkpoint") {
      const res = await handleCheckpoint(req, {
        ...o.checkpoint,
        authenticate: (r) => o.authenticator.authenticate(r, conn),
        authorize: (u, a) => o.authorizer.authorize(u, a),
      });
      o.logger?.v(2).info("HTTP", { verb: req.method, uri: path, resp: res.status });
      return res;
    }
    const user = await o.authenticator.authenticate(req, conn);
    if (!user) return json(401, StatusError.unauthorized().status);
    const nodeName = o.checkpoint.nodeName;
    const subresource = nodeSubresourceFor(path);
    let allowed: boolean;
    try {
      allowed = await o.authorizer.authorize(user, {
        verb: req.method === "GET" || req.method === "HEAD" ? "get" : req.method.toLowerCase(),
        resource: "nodes",
        subresource,
        name: nodeName,
      });
    } catch (err) {
      const e = err instanceof StatusError ? err : StatusError.internal(String(err));
      return json(e.code, e.status);
    }
    if (!allowed) {
      const e = StatusError.forbidden(
        { group: "", resource: "nodes" },
        nodeName,
        `User "${user.username}" cannot get resource "nodes/${subresource}" in API group "" at the cluster scope`,
      );
      return json(403, e.status);
    }
    if (isStreamingPath(path)) {
      try {
        return serveStreaming(req, new URL(req.url), o.checkpoint.runtime, conn.signal);
      } catch (err) {
        const e = err instanceof StatusError ? err : StatusError.internal(String(err));
        return json(e.code, e.status);
      }
    }
    if (path === "/healthz") {
      const problems = await o.health();
      return new Response(problems.length ? `unhealthy: ${problems.join("; ")}\n` : "ok", {
        status: problems.length ? 500 : 200,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    const stats = o.stats && await serveStats(req, path, o.stats);
    if (stats) return stats;
    return json(404, StatusError.pathNotFound().status);
  };
  return serveHttps(handler, {
    hostname: o.address,
    port: o.port,
    certPem: o.certPem,
    keyPem: o.keyPem,
    requestClientCert: true,
  });
}
