/**
 * The aggregator's HTTPS transport to extension API servers: resolves an APIService's
 * Service to one ready endpoint (EndpointSlices, as kube-aggregator's endpoint routing; an
 * ExternalName Service to its name), connects with TLS verified for
 * `<service>.<namespace>.svc` against the APIService's `caBundle` (or not at all with
 * `insecureSkipTLSVerify`), presents the front-proxy client certificate, and streams the
 * request and the answer both ways with backpressure (and, for a connection upgrade, the
 * raw bytes once both sides switched). Keep-alive agents are kept per CA bundle and server
 * name.
 *
 * It uses node:https, as the webhook client does: only it verifies a certificate for a name
 * other than the address connected to (`servername`).
 *
 * @module
 */
import https from "node:https";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { fromBase64 } from "../../shared/codec/protobuf/well_known.ts";
import { dialUpgrade, proxyUpgrade } from "../../shared/http/upgrade_dial.ts";
import { resolveServiceEndpoint, type ServiceEndpointSource } from "../webhook/service_resolver.ts";
import type { ApiServiceInfo, ServiceRef } from "./api_service_cache.ts";

/** Why a request could not reach the extension, worded as Go's errors. */
export class ProxyError extends Error {
  /** `resolve`: no endpoint (kube answers "service unavailable"); `transport`: dial, TLS. */
  readonly stage: "resolve" | "transport";
  constructor(stage: "resolve" | "transport", message: string) {
    super(message);
    this.stage = stage;
  }
}

/** One outbound request. */
export interface ProxyRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: ReadableStream<Uint8Array> | null;
  signal?: AbortSignal;
  /** Milliseconds until the answer's headers must have arrived (none by default). */
  timeoutMs?: number;
  /** The endpoint to use, already resolved (default: resolve the Service). */
  endpoint?: { host: string; port: number };
}

/** The answer: status, headers and a body stream that pauses the upstream when not read. */
export interface ProxyResponse {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

/** Options of the transport. */
export interface ProxyTransportOptions {
  endpoints: ServiceEndpointSource;
  /** The front-proxy client certificate and key (PEM). */
  clientCertPem: string;
  clientKeyPem: string;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** See the module documentation. */
export class ProxyTransport {
  readonly #opts: ProxyTransportOptions;
  readonly #agents = new Map<string, https.Agent>();
  readonly #resolved = new Map<string, Promise<{ host: string; port: number }>>();

  constructor(opts: ProxyTransportOptions) {
    this.#opts = opts;
  }

  /**
   * A ready endpoint of the APIService's Service; throws a `resolve` ProxyError. The answer is
   * kept until {@link invalidate} is told of a change in the Service's namespace.
   */
  resolve(svc: ServiceRef): Promise<{ host: string; port: number }> {
    const key = `${svc.namespace}/${svc.name}:${svc.port}`;
    const found = this.#resolved.get(key);
    if (found) return found;
    const resolving = this.#resolve(svc);
    this.#resolved.set(key, resolving);
    resolving.catch(() => {
      if (this.#resolved.get(key) === resolving) this.#resolved.delete(key);
    });
    return resolving;
  }

  /** Forgets the endpoints resolved in `namespaces` (their Services or EndpointSlices changed). */
  invalidate(namespaces: ReadonlySet<string>): void {
    for (const key of this.#resolved.keys()) {
      if (namespaces.has(key.slice(0, key.indexOf("/")))) this.#resolved.delete(key);
    }
  }

  async #resolve(svc: ServiceRef): Promise<{ host: string; port: number }> {
    try {
      const service = await this.#opts.endpoints.getService(svc.namespace, svc.name);
      const spec = (service?.spec ?? {}) as Record<string, unknown>;
      if (spec.type === "ExternalName" && typeof spec.externalName === "string") {
        return { host: spec.externalName, port: svc.port };
      }
      return await resolveServiceEndpoint(this.#opts.endpoints, svc.namespace, svc.name, svc.port);
    } catch (err) {
      throw new ProxyError("resolve", (err as Error).message);
    }
  }

  /** Sends `req` to the APIService's Service; throws a ProxyError when it cannot. */
  async send(api: ApiServiceInfo, req: ProxyRequest): Promise<ProxyResponse> {
    const svc = api.service!;
    const ep = req.endpoint ?? await this.resolve(svc);
    const servername = `${svc.name}.${svc.namespace}.svc`;
    let agent: https.Agent;
    try {
      agent = this.#agent(api, servername);
    } catch (err) {
      throw new ProxyError("transport", (err as Error).message);
    }
    const res = await this.#request(ep, servername, agent, req);
    return { status: res.statusCode ?? 502, headers: responseHeaders(res), body: toWeb(res) };
  }

  /**
   * Passes a connection upgrade (`Connection: Upgrade`, e.g. WebSocket or SPDY) to the
   * APIService's Service: its 101 splices the two connections, any other answer comes back as
   * it is. Throws a ProxyError when it cannot reach the Service.
   */
  async upgrade(api: ApiServiceInfo, req: ProxyRequest): Promise<Response> {
    const svc = api.service!;
    const ep = req.endpoint ?? await this.resolve(svc);
    const servername = `${svc.name}.${svc.namespace}.svc`;
    let ca: string | undefined;
    try {
      ca = api.caBundle ? caPem(api.caBundle) : undefined;
    } catch (err) {
      throw new ProxyError("transport", (err as Error).message);
    }
    const headers: [string, string][] = [];
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : [value]) headers.push([name, v]);
    }
    try {
      const r = await dialUpgrade({
        host: ep.host,
        port: ep.port,
        method: req.method,
        path: req.path,
        headers,
        tls: {
          cert: this.#opts.clientCertPem,
          key: this.#opts.clientKeyPem,
          servername,
          rejectUnauthorized: !api.insecureSkipTLSVerify,
          ...(ca ? { ca } : {}),
        },
        signal: req.signal,
        timeoutMs: req.timeoutMs,
      });
      return r.kind === "upgraded" ? proxyUpgrade(r) : r.response;
    } catch (err) {
      throw new ProxyError("transport", goError(err as Error, ep));
    }
  }

  /** Destroys the keep-alive agents. */
  close(): void {
    for (const a of this.#agents.values()) a.destroy();
    this.#agents.clear();
  }

  #agent(api: ApiServiceInfo, servername: string): https.Agent {
    const key = `${api.insecureSkipTLSVerify}\n${api.caBundle ?? ""}\n${servername}`;
    const found = this.#agents.get(key);
    if (found) return found;
    const ca = api.caBundle ? caPem(api.caBundle) : undefined;
    const agent = new https.Agent({
      keepAlive: true,
      cert: this.#opts.clientCertPem,
      key: this.#opts.clientKeyPem,
      servername,
      rejectUnauthorized: !api.insecureSkipTLSVerify,
      ...(ca ? { ca: [ca] } : {}),
    });
    if (this.#agents.size >= 64) {
      const [oldestKey, oldest] = this.#agents.entries().next().value!;
      this.#agents.delete(oldestKey);
      oldest.destroy();
    }
    this.#agents.set(key, agent);
    return agent;
  }

  #request(
    ep: { host: string; port: number },
    servername: string,
    agent: https.Agent,
    req: ProxyRequest,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const out = https.request({
        host: ep.host,
        port: ep.port,
        path: req.path,
        method: req.method,
        agent,
        servername,
        rejectUnauthorized: agent.options.rejectUnauthorized,
        headers: req.headers,
      }, (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      const timer = req.timeoutMs
        ? setTimeout(() => out.destroy(new Error("context deadline exceeded")), req.timeoutMs)
        : undefined;
      const onAbort = () => out.destroy(new Error("context canceled"));
      req.signal?.addEventListener("abort", onAbort, { once: true });
      out.on("close", () => req.signal?.removeEventListener("abort", onAbort));
      out.on("error", (err: Error) => {
        clearTimeout(timer);
        reject(new ProxyError("transport", goError(err, ep)));
      });
      if (req.body) Readable.fromWeb(req.body as never).pipe(out);
      else out.end();
    });
  }
}

/** The PEM text of a base64 caBundle. */
function caPem(caBundle: string): string {
  const bytes = fromBase64(caBundle);
  const pem = bytes ? new TextDecoder().decode(bytes) : "";
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error("unable to load root certificates: unable to parse bytes as PEM block");
  }
  return pem;
}

/** The headers of an upstream answer, less the hop-by-hop ones. */
function responseHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === "content-length") continue;
    for (const v of Array.isArray(value) ? value : [value]) h.append(name, v);
  }
  return h;
}

/** The answer's body as a web stream that pauses the socket while the reader lags. */
function toWeb(res: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on("data", (chunk: Uint8Array) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.on("end", () => {
        if (!done) controller.close();
        done = true;
      });
      res.on("error", (err: Error) => {
        if (!done) controller.error(err);
        done = true;
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      done = true;
      res.destroy();
    },
  }, { highWaterMark: 16 });
}

const UNKNOWN_AUTHORITY = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_UNTRUSTED",
]);

/** A Node transport error in Go's words (`dial tcp 10.0.0.1:443: connect: connection refused`). */
function goError(err: Error, ep: { host: string; port: number }): string {
  const code = (err as { code?: string }).code ?? "";
  const addr = ep.host.includes(":") ? `[${ep.host}]:${ep.port}` : `${ep.host}:${ep.port}`;
  if (code === "ECONNREFUSED") return `dial tcp ${addr}: connect: connection refused`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return `dial tcp: lookup ${ep.host}: no such host`;
  }
  if (code === "ECONNRESET") return `read tcp ${addr}: read: connection reset by peer`;
  if (code === "ETIMEDOUT") return `dial tcp ${addr}: i/o timeout`;
  if (UNKNOWN_AUTHORITY.has(code) || /unknown ?issuer|UnknownIssuer/i.test(err.message)) {
    return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return "tls: failed to verify certificate: x509: certificate is not valid for the service name";
  }
  return err.message;
}
