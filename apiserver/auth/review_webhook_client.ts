/**
 * The HTTPS client of the token-review and subject-access-review webhooks: POSTs a review
 * (JSON) to the kubeconfig's server with its CA, client certificate and bearer token, within
 * a timeout, and answers the response text (a {@link WebhookStatusError} outside 2xx, so that
 * the retry rules can judge it).
 *
 * @module
 */
import type { ClientConfig } from "../../shared/client/kubeconfig.ts";
import { webhookStatusError } from "./webhook_retry.ts";

/** See the module documentation. */
export class ReviewWebhookClient {
  readonly #config: ClientConfig;
  readonly #timeoutMs: number;
  readonly #client: Deno.HttpClient;

  constructor(config: ClientConfig, timeoutMs: number) {
    this.#config = config;
    this.#timeoutMs = timeoutMs;
    const tls: Deno.CreateHttpClientOptions & { cert?: string; key?: string } = {};
    if (config.caPem) tls.caCerts = [config.caPem];
    if (config.clientCertPem && config.clientKeyPem) {
      tls.cert = config.clientCertPem;
      tls.key = config.clientKeyPem;
    }
    this.#client = Deno.createHttpClient(tls);
  }

  /** One POST of a review; the answer's text. */
  async post(body: string): Promise<string> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (this.#config.token) headers.authorization = `Bearer ${this.#config.token}`;
    const res = await fetch(this.#config.server, {
      method: "POST",
      headers,
      body,
      client: this.#client,
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw webhookStatusError(res);
    return text;
  }

  /** Releases the HTTP client. */
  close(): void {
    this.#client.close();
  }
}
