/**
 * Proxies requests under `/apis/<group>/<version>` of a remote APIService (one with a
 * Service) to its extension API server, after this server authenticated and authorized
 * them, as kube-aggregator's proxy handler does: the caller's identity goes as the
 * front-proxy headers (`X-Remote-User`, `X-Remote-Group`, `X-Remote-Extra-<key>` with the
 * key percent-encoded), never their credentials (Authorization, client certificate) or
 * impersonation headers; an APIService that is not Available, or whose Service has no ready
 * endpoint, answers 503 `service unavailable`, and one that cannot be reached 503
 * `error trying to reach service: <why>`, in plain text as kube's. A connection upgrade
 * (WebSocket, SPDY) is passed through: the extension's 101 splices the two connections.
 *
 * @module
 */
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { ApiServiceCache, ApiServiceInfo } from "./api_service_cache.ts";
import { ProxyError, type ProxyTransport } from "./proxy_transport.ts";
import { requestedUpgrade } from "../../shared/http/upgrade_response.ts";

/** What a proxied request brings. */
export interface ProxyContext {
  req: Request;
  url: URL;
  user?: UserInfo;
  /** Aborts the upstream request when the client goes away. */
  signal?: AbortSignal;
  /** The client's address, appended to `X-Forwarded-For` as Go's reverse proxy does. */
  clientIp?: string;
}

const DROPPED = new Set([
  "authorization",
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Whether a request header is never forwarded (credentials, impersonation, identity, hop-by-hop). */
function dropped(name: string): boolean {
  return DROPPED.has(name) || name.startsWith("impersonate-") || name.startsWith("x-remote-");
}

/** Go's headerKeyEscape: bytes that are not header token bytes, and `%`, become `%XX`. */
export function escapeExtraKey(key: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(key)) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && c !== "%" && /[!#$&'*+\-.^_`|~0-9A-Za-z]/.test(c)) out += c;
    else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The headers sent upstream: the client's, less the dropped ones, plus the identity and the
 * client's address in `X-Forwarded-For`.
 */
export function upstreamHeaders(
  req: Request,
  user: UserInfo,
  clientIp?: string,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of req.headers) {
    if (!dropped(name)) out[name] = value;
  }
  if (clientIp) {
    const prior = req.headers.get("x-forwarded-for");
    out["x-forwarded-for"] = prior ? `${prior}, ${clientIp}` : clientIp;
  }
  out["x-remote-user"] = user.username;
  if (user.groups.length > 0) out["x-remote-group"] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) out[`x-remote-extra-${escapeExtraKey(key)}`] = [...values];
  }
  return out;
}

function plain(status: number, text: string): Response {
  return new Response(`${text}\n`, {
    status,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** See the module documentation. */
export class AggregatorProxy {
  readonly #cache: ApiServiceCache;
  readonly #transport: ProxyTransport;
  readonly #logger?: Logger;

  constructor(opts: { cache: ApiServiceCache; transport: ProxyTransport; logger?: Logger }) {
    this.#cache = opts.cache;
    this.#transport = opts.transport;
    this.#logger = opts.logger;
  }

  /** The remote APIService serving `pathname` (`/apis/<group>/<version>[/...]`), if any. */
  remoteFor(pathname: string): ApiServiceInfo | undefined {
    const segs = pathname.split("/");
    if (segs[1] !== "apis" || !segs[2] || !segs[3]) return undefined;
    const api = this.#cache.forGroupVersion(segs[2], segs[3]);
    return api?.service ? api : undefined;
  }

  /** Proxies the request when a remote APIService serves its path; else undefined. */
  async handle(ctx: ProxyContext): Promise<Response | undefined> {
    const api = this.remoteFor(ctx.url.pathname);
    if (!api) return undefined;
    if (!api.available) return plain(503, "service unavailable");
    if (!ctx.user) return plain(500, "missing user");
    const method = ctx.req.method;
    const body = method === "GET" || method === "HEAD" ? null : ctx.req.body;
    const headers = upstreamHeaders(ctx.req, ctx.user, ctx.clientIp);
    // The body streams chunked: Deno's node:https loses a DELETE's body sent with its
    // content-length (and an HTTP/2 request need not have one).
    if (body) {
      delete headers["content-length"];
      headers["transfer-encoding"] = "chunked";
    }
    const upgrade = requestedUpgrade(ctx.req.headers);
    try {
      if (upgrade) {
        return await this.#transport.upgrade(api, {
          method,
          path: ctx.url.pathname + ctx.url.search,
          headers: { ...headers, connection: "Upgrade", upgrade: ctx.req.headers.get("upgrade")! },
          signal: ctx.signal,
        });
      }
      const res = await this.#transport.send(api, {
        method,
        path: ctx.url.pathname + ctx.url.search,
        headers,
        body,
        signal: ctx.signal,
      });
      return new Response(method === "HEAD" ? null : res.body, {
        status: res.status,
        headers: res.headers,
      });
    } catch (err) {
      if (!(err instanceof ProxyError)) throw err;
      if (err.stage === "resolve") {
        this.#logger?.error("error resolving APIService service", {
          apiService: api.name,
          err: err.message,
        });
        return plain(503, "service unavailable");
      }
      return plain(503, `error trying to reach service: ${err.message}`);
    }
  }
}
