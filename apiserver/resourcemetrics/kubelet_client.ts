/**
 * The API server's HTTPS client to node agents (kubelets): GETs a path on a node's address and
 * kubelet port, verifying the agent's serving certificate for that address against a CA bundle
 * (the cluster CA, which signs `kubernetes.io/kubelet-serving` certificates; no verification
 * with `insecureSkipTLSVerify`), and presenting the API server's kubelet client certificate.
 *
 * It uses node:https, as the aggregator's transport does: one keep-alive agent for all nodes.
 *
 * @module
 */
import https from "node:https";

/** Options of {@link KubeletClient}. */
export interface KubeletClientOptions {
  /** CA bundle (PEM) the agents' serving certificates must chain to. */
  caPem: string;
  /** Skip verification of the agents' certificates (metrics-server's `--kubelet-insecure-tls`). */
  insecureSkipTLSVerify?: boolean;
  /** The client certificate and key (PEM) presented to the agents. */
  clientCertPem: string;
  clientKeyPem: string;
  /** How long a request may take (ms). */
  timeoutMs: number;
}

/** Largest answer read (bytes). */
const MAX_BODY = 64 * 1024 * 1024;

/** See the module documentation. */
export class KubeletClient {
  readonly #o: KubeletClientOptions;
  readonly #agent: https.Agent;

  constructor(opts: KubeletClientOptions) {
    this.#o = opts;
    this.#agent = new https.Agent({
      keepAlive: true,
      maxSockets: 4,
      ca: opts.caPem,
      cert: opts.clientCertPem,
      key: opts.clientKeyPem,
      rejectUnauthorized: !opts.insecureSkipTLSVerify,
    });
  }

  /**
   * GETs `path` from `host:port`; resolves with the body of a 200 answer.
   *
   * @throws {Error} on a transport error, a timeout, or another status.
   */
  get(host: string, port: number, path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = https.request({
        host,
        port,
        path,
        method: "GET",
        agent: this.#agent,
        headers: { accept: "text/plain, application/json" },
        timeout: this.#o.timeoutMs,
      }, (res) => {
        const chunks: Uint8Array[] = [];
        let size = 0;
        res.on("data", (c: Uint8Array) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(new Error("answer too large"));
          else chunks.push(c);
        });
        res.on("end", () => {
          const text = new TextDecoder().decode(concat(chunks));
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`request failed, status: ${res.statusCode} ${text.slice(0, 200)}`));
        });
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`timeout after ${this.#o.timeoutMs}ms`)));
      req.on("error", reject);
      req.end();
    });
  }

  /** Closes idle connections. */
  close(): void {
    this.#agent.destroy();
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) out.set(c, at), at += c.length;
  return out;
}
