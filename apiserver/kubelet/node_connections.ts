/**
 * How the API server reaches node agents (kube-apiserver's kubelet client): over HTTPS to the
 * node's address (`--kubelet-preferred-address-types`, InternalIP first) and the port it
 * publishes in `status.daemonEndpoints.kubeletEndpoint`, presenting the API server's kubelet
 * client certificate (`--kubelet-client-certificate`, else one the server issues itself from
 * the cluster CA as `kube-apiserver-kubelet-client` in `system:masters`). The agent's serving
 * certificate is verified against `--kubelet-certificate-authority`, by default the cluster CA
 * (which signs `kubernetes.io/kubelet-serving` certificates), or not at all with
 * `--kubelet-insecure-tls` (agents with self-signed certificates).
 *
 * @module
 */
import https from "node:https";
import { Readable } from "node:stream";
import type { ConnectionOptions } from "node:tls";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { dialUpgrade, proxyUpgrade } from "../../shared/http/upgrade_dial.ts";

/** Options of {@link NodeConnections}. */
export interface NodeConnectionOptions {
  clientCertPem: string;
  clientKeyPem: string;
  /** CA bundle (PEM) that signs agents' serving certificates. */
  caPem: string;
  /** Do not verify the agents' serving certificates. */
  insecureSkipTLSVerify: boolean;
  /** Address types in order of preference (default InternalIP, Hostname, ExternalIP...). */
  preferredAddressTypes?: string[];
}

const DEFAULT_ADDRESS_TYPES = [
  "InternalIP",
  "Hostname",
  "InternalDNS",
  "ExternalDNS",
  "ExternalIP",
];

/** The largest answer {@link NodeConnections.getText} reads (bytes). */
const MAX_TEXT_BODY = 64 * 1024 * 1024;

/** Hop-by-hop request fields not passed to the agent. */
const NOT_FORWARDED = new Set([
  "host",
  "authorization",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "impersonate-user",
  "impersonate-group",
  "impersonate-uid",
]);

/** See the module documentation. */
export class NodeConnections {
  readonly #o: NodeConnectionOptions;

  constructor(opts: NodeConnectionOptions) {
    this.#o = opts;
  }

  /**
   * The node's address and port.
   *
   * @throws {StatusError} 400 when the node publishes no usable address or port.
   */
  location(node: KubeObject): { host: string; port: number } {
    const status = (node.status ?? {}) as {
      addresses?: { type: string; address: string }[];
      daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
    };
    const port = status.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
    const addresses = status.addresses ?? [];
    for (const type of this.#o.preferredAddressTypes ?? DEFAULT_ADDRESS_TYPES) {
      const a = addresses.find((x) => x.type === type && x.address);
      if (a && port > 0) return { host: a.address, port };
    }
    throw StatusError.badRequest(
      `no preferred addresses found; known addresses: ${JSON.stringify(addresses)}`,
    );
  }

  #tls(): ConnectionOptions {
    return {
      cert: this.#o.clientCertPem,
      key: this.#o.clientKeyPem,
      ca: this.#o.caPem,
      rejectUnauthorized: !this.#o.insecureSkipTLSVerify,
    };
  }

  /**
   * A GET to the agent, its answer streamed back.
   *
   * @throws {StatusError} 500 when the agent cannot be reached.
   */
  get(node: KubeObject, path: string, signal: AbortSignal): Promise<Response> {
    const { host, port } = this.location(node);
    return new Promise((resolve, reject) => {
      const req = https.request({ host, port, path, method: "GET", ...this.#tls() }, (res) => {
        const headers = new Headers();
        const type = res.headers["content-type"];
        if (typeof type === "string") headers.set("content-type", type);
        const body = Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>;
        resolve(new Response(body, { status: res.statusCode ?? 502, headers }));
      });
      req.on("error", (err) => reject(unreachable(host, port, err)));
      signal.addEventListener("abort", () => req.destroy(), { once: true });
      req.end();
    });
  }

  /**
   * GETs `path` from the node's agent within `timeoutMs` (or until `stop` aborts); resolves
   * with the body of a 200 answer (at most 64 MiB).
   *
   * @throws {Error} on a transport error, a timeout, another status or a larger answer.
   */
  async getText(
    node: KubeObject,
    path: string,
    timeoutMs: number,
    stop?: AbortSignal,
  ): Promise<string> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
    const res = await this.get(node, path, signal);
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      size += r.value.length;
      if (size > MAX_TEXT_BODY) {
        await reader.cancel();
        throw new Error("answer too large");
      }
      chunks.push(r.value);
    }
    const text = await new Blob(chunks as Uint8Array<ArrayBuffer>[]).text();
    if (res.status !== 200) {
      throw new Error(`request failed, status: ${res.status} ${text.slice(0, 200)}`);
    }
    return text;
  }

  /**
   * Passes an upgrade request (exec, attach, port-forward) on to the agent: its 101 splices
   * the two connections; any other answer is returned as it is.
   *
   * @throws {StatusError} 500 when the agent cannot be reached.
   */
  async upgrade(node: KubeObject, path: string, req: Request): Promise<Response> {
    const { host, port } = this.location(node);
    const headers: [string, string][] = [];
    for (const [k, v] of req.headers) if (!NOT_FORWARDED.has(k)) headers.push([k, v]);
    try {
      const r = await dialUpgrade({
        host,
        port,
        method: req.method,
        path,
        headers,
        tls: this.#tls(),
      });
      return r.kind === "upgraded" ? proxyUpgrade(r) : r.response;
    } catch (err) {
      throw unreachable(host, port, err);
    }
  }
}

function unreachable(host: string, port: number, err: unknown): StatusError {
  const message = err instanceof Error ? err.message : String(err);
  return StatusError.internal(`error dialing backend: dial tcp ${host}:${port}: ${message}`);
}
