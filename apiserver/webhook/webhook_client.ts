/**
 * The outbound HTTPS client of admission webhooks and CRD conversion webhooks: a JSON body
 * POSTed to a webhook's `clientConfig` (a `url`, or a `service` reached through one of its
 * ready endpoints with TLS verified for `<name>.<namespace>.svc`), trusting its `caBundle`
 * (the system roots when absent), with a timeout, a bound on the answer's size and
 * keep-alive connections reused per configuration.
 *
 * It uses node:https rather than fetch: only node:https lets a connection to an endpoint's
 * address verify the certificate for the Service's DNS name (`servername`).
 *
 * @module
 */
import https from "node:https";
import type { IncomingMessage } from "node:http";
import type {
  ServiceReference,
  WebhookClientConfig,
} from "../../shared/api/apiextensions/v1/types.ts";
import { fromBase64 } from "../../shared/codec/protobuf/well_known.ts";
import { postError, statusError, WebhookError } from "./webhook_error.ts";
import { resolveServiceEndpoint, type ServiceEndpointSource } from "./service_resolver.ts";

export { WebhookError, type WebhookErrorKind } from "./webhook_error.ts";
export type { ServiceEndpointSource } from "./service_resolver.ts";

/**
 * How a webhook is reached: exactly one of `url` (https) and `service`, with a base64 PEM
 * `caBundle` (absent or empty: the system roots). admissionregistration/v1 and apiextensions/v1
 * declare the same WebhookClientConfig.
 */
export type { WebhookClientConfig };
/** A Service reference of a webhook (`clientConfig.service`; path default `/`, port 443). */
export type WebhookServiceReference = ServiceReference;

/** Options of one call. */
export interface WebhookPostOptions {
  /** The call's deadline, ms (admission: timeoutSeconds × 1000). Sent as `?timeout=`. */
  timeoutMs: number;
  /** Largest answer accepted, bytes (default {@link DEFAULT_MAX_RESPONSE_BYTES}). */
  maxResponseBytes?: number;
  /** Aborts the call early (the caller's request went away). */
  signal?: AbortSignal;
}

/** Options of the client. */
export interface WebhookClientOptions {
  /** Resolves `service` references; without it such calls fail as unreachable. */
  endpoints?: ServiceEndpointSource;
  /** How many keep-alive agents (one per CA bundle and server name) are kept (default 64). */
  maxAgents?: number;
}

/** The default bound of an answer's size: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 << 20;

/** Go's time.Duration text of a whole number of milliseconds (`10s`, `500ms`, `1.5s`). */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  return `${ms / 1000}s`;
}

/**
 * The URL kube's REST client would post to for `config` (with `?timeout=`): the `url` as is,
 * or `https://<name>.<namespace>.svc:<port><path>` for a Service. Used in error messages.
 */
export function webhookURL(config: WebhookClientConfig, timeoutMs: number): string {
  const base = config.url ?? serviceBaseURL(config.service!);
  const sep = base.includes("?") ? "&" : "?";
  return `${base}${sep}timeout=${goDuration(timeoutMs)}`;
}

function serviceHost(svc: WebhookServiceReference): string {
  return `${svc.name}.${svc.namespace}.svc`;
}

function serviceBaseURL(svc: WebhookServiceReference): string {
  const path = svc.path ? (svc.path.startsWith("/") ? svc.path : `/${svc.path}`) : "/";
  return `https://${serviceHost(svc)}:${svc.port ?? 443}${path}`;
}

/** Where one call connects and what it asks for. */
interface Target {
  host: string;
  port: number;
  path: string;
  /** TLS server name to verify; absent: the host. */
  servername?: string;
  /** The Host header. */
  hostHeader: string;
}

/** The PEM text of a base64 CA bundle, or undefined for the system roots. */
function caPem(caBundle: string | undefined): string | undefined {
  if (!caBundle) return undefined;
  const bytes = fromBase64(caBundle);
  const pem = bytes ? new TextDecoder().decode(bytes) : "";
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error("unable to load root certificates: unable to parse bytes as PEM block");
  }
  return pem;
}

/** Sends JSON bodies to webhooks; see the module documentation. */
export class WebhookClient {
  readonly #endpoints?: ServiceEndpointSource;
  readonly #maxAgents: number;
  /** Keep-alive agents by CA bundle and server name, least recently used first. */
  readonly #agents = new Map<string, https.Agent>();
  #closed = false;

  constructor(opts: WebhookClientOptions = {}) {
    this.#endpoints = opts.endpoints;
    this.#maxAgents = opts.maxAgents ?? 64;
  }

  /**
   * POSTs `body` as JSON to the webhook of `config` and answers its parsed JSON answer.
   * Throws a {@link WebhookError}: `unreachable` (resolution, connection or TLS failed),
   * `timeout`, `status` (a non-2xx answer) or `body` (not JSON, or too large). The messages
   * read as kube's (`Post "<url>?timeout=10s": context deadline exceeded`).
   */
  async post(
    config: WebhookClientConfig,
    body: unknown,
    opts: WebhookPostOptions,
  ): Promise<unknown> {
    const url = webhookURL(config, opts.timeoutMs);
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
    let target: Target, agent: https.Agent;
    try {
      if (this.#closed) throw new Error("the webhook client is closed");
      target = await this.#target(config, url);
      agent = this.#agent(config.caBundle, target.servername);
    } catch (err) {
      throw postError("unreachable", url, (err as Error).message);
    }
    if (signal.aborted) throw postError("timeout", url, "context deadline exceeded");
    const res = await this.#send(target, agent, JSON.stringify(body), url, signal);
    const text = await readBounded(res, opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, url);
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw statusError(code, text);
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new WebhookError(
        "body",
        `couldn't get version/kind; json parse error: ${(err as Error).message}`,
      );
    }
  }

  /** Destroys every keep-alive agent (idle connections close); later calls fail. */
  close(): void {
    this.#closed = true;
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }

  async #target(config: WebhookClientConfig, url: string): Promise<Target> {
    if (config.url !== undefined) {
      const u = new URL(url);
      const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
      const port = u.port ? Number(u.port) : 443;
      return { host, port, path: u.pathname + u.search, hostHeader: u.host };
    }
    const svc = config.service;
    if (!svc) throw new Error("the webhook's clientConfig has neither url nor service");
    if (!this.#endpoints) throw new Error("services cannot be resolved here");
    const port = svc.port ?? 443;
    const ep = await resolveServiceEndpoint(this.#endpoints, svc.namespace, svc.name, port);
    const u = new URL(url);
    return {
      host: ep.host,
      port: ep.port,
      path: u.pathname + u.search,
      servername: serviceHost(svc),
      hostHeader: `${serviceHost(svc)}:${port}`,
    };
  }

  #agent(caBundle: string | undefined, servername: string | undefined): https.Agent {
    const key = `${caBundle ?? ""}\n${servername ?? ""}`;
    const found = this.#agents.get(key);
    if (found) {
      this.#agents.delete(key);
      this.#agents.set(key, found);
      return found;
    }
    const ca = caPem(caBundle);
    const agent = new https.Agent({
      keepAlive: true,
      ...(ca ? { ca: [ca] } : {}),
      ...(servername ? { servername } : {}),
    });
    this.#agents.set(key, agent);
    if (this.#agents.size > this.#maxAgents) {
      const [oldestKey, oldest] = this.#agents.entries().next().value!;
      this.#agents.delete(oldestKey);
      oldest.destroy();
    }
    return agent;
  }

  #send(
    target: Target,
    agent: https.Agent,
    payload: string,
    url: string,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = https.request({
        host: target.host,
        port: target.port,
        path: target.path,
        method: "POST",
        agent,
        ...(target.servername ? { servername: target.servername } : {}),
        headers: {
          host: target.hostHeader,
          "content-type": "application/json",
          accept: "application/json, */*",
          "content-length": String(new TextEncoder().encode(payload).length),
        },
      }, (res) => {
        signal.removeEventListener("abort", onAbort);
        abortResponseOn(signal, res);
        resolve(res);
      });
      const onAbort = () => req.destroy(abortError(signal));
      signal.addEventListener("abort", onAbort, { once: true });
      req.on("error", (err: Error) => {
        signal.removeEventListener("abort", onAbort);
        reject(transportError(err, url, target, signal));
      });
      req.end(payload);
    });
  }
}

/** The error an abort destroys a request or response with. */
function abortError(signal: AbortSignal): Error {
  const err = new Error("context deadline exceeded");
  (err as { code?: string }).code = signal.reason?.name === "TimeoutError"
    ? "WEBHOOK_TIMEOUT"
    : "WEBHOOK_CANCELED";
  return err;
}

function abortResponseOn(signal: AbortSignal, res: IncomingMessage): void {
  if (signal.aborted) {
    res.destroy(abortError(signal));
    return;
  }
  const onAbort = () => res.destroy(abortError(signal));
  signal.addEventListener("abort", onAbort, { once: true });
  res.once("close", () => signal.removeEventListener("abort", onAbort));
}

const TLS_UNKNOWN_AUTHORITY = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_UNTRUSTED",
]);

/** A transport failure as a WebhookError with Go's wording where it has one. */
function transportError(
  err: Error,
  url: string,
  target: Target,
  signal: AbortSignal,
): WebhookError {
  const code = (err as { code?: string }).code ?? "";
  const addr = target.host.includes(":")
    ? `[${target.host}]:${target.port}`
    : `${target.host}:${target.port}`;
  if (code === "WEBHOOK_TIMEOUT" || (signal.aborted && signal.reason?.name === "TimeoutError")) {
    return postError("timeout", url, "context deadline exceeded");
  }
  if (code === "WEBHOOK_CANCELED") return postError("timeout", url, "context canceled");
  if (code === "ECONNREFUSED") {
    return postError("unreachable", url, `dial tcp ${addr}: connect: connection refused`);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return postError("unreachable", url, `dial tcp: lookup ${target.host}: no such host`);
  }
  if (code === "ECONNRESET") {
    return postError("unreachable", url, `read tcp ${addr}: connection reset by peer`);
  }
  if (TLS_UNKNOWN_AUTHORITY.has(code) || /unknown ?issuer|UnknownIssuer/i.test(err.message)) {
    return postError(
      "unreachable",
      url,
      "tls: failed to verify certificate: x509: certificate signed by unknown authority",
    );
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return postError(
      "unreachable",
      url,
      `tls: failed to verify certificate: x509: certificate is not valid for ${
        target.servername ?? target.host
      }`,
    );
  }
  return postError("unreachable", url, err.message);
}

/** Reads the answer's text, failing once it exceeds `max` bytes. */
function readBounded(res: IncomingMessage, max: number, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    res.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > max) {
        res.destroy();
        reject(new WebhookError("body", `the webhook's answer exceeds ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on("end", () => {
      const all = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        all.set(c, at);
        at += c.length;
      }
      resolve(new TextDecoder().decode(all));
    });
    res.on("error", (err: Error) => {
      const code = (err as { code?: string }).code;
      if (code === "WEBHOOK_TIMEOUT") {
        reject(postError("timeout", url, "context deadline exceeded"));
      } else if (code === "WEBHOOK_CANCELED") reject(postError("timeout", url, "context canceled"));
      else reject(postError("unreachable", url, err.message));
    });
  });
}
