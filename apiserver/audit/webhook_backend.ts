/**
 * The audit webhook backend (`--audit-webhook-config-file`, a kubeconfig naming the server and
 * its credentials): events are batched and POSTed as an audit.k8s.io/v1 `EventList`, a batch
 * leaving when it holds `maxBatchSize` events or its oldest event has waited `maxBatchWaitMs`
 * (mode `batch`, kube's default), or each event at once (mode `blocking`, still without holding
 * the request). A failed POST is retried with doubling backoff from `initialBackoffMs`, three
 * tries in all, then the batch is dropped and logged; at most `bufferSize` events wait.
 *
 * @module
 */
import type { ClientConfig } from "../../shared/client/kubeconfig.ts";
import type { AuditBackend } from "./log_backend.ts";

/** Options of {@link webhookBackend}. */
export interface WebhookBackendOptions {
  config: ClientConfig;
  mode: "batch" | "blocking";
  maxBatchSize: number;
  maxBatchWaitMs: number;
  initialBackoffMs: number;
  /** Events held at most while batches are in flight (kube: 10 000). */
  bufferSize?: number;
  onError?: (message: string) => void;
}

const ATTEMPTS = 3;

/** The webhook backend of `opts`. */
export function webhookBackend(opts: WebhookBackendOptions): AuditBackend {
  const tls: Deno.CreateHttpClientOptions & { cert?: string; key?: string } = {};
  if (opts.config.caPem) tls.caCerts = [opts.config.caPem];
  if (opts.config.clientCertPem && opts.config.clientKeyPem) {
    tls.cert = opts.config.clientCertPem;
    tls.key = opts.config.clientKeyPem;
  }
  const client = Deno.createHttpClient(tls);
  const batchSize = opts.mode === "blocking" ? 1 : Math.max(1, opts.maxBatchSize);
  const bufferSize = opts.bufferSize ?? 10_000;
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const inFlight = new Set<Promise<void>>();
  let closed = false;

  const send = (items: string[]) => {
    const p = post(opts, client, items, closed ? 1 : ATTEMPTS).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const items = pending;
    pending = [];
    for (let i = 0; i < items.length; i += batchSize) send(items.slice(i, i + batchSize));
  };
  return {
    write(event) {
      if (closed) return;
      if (pending.length >= bufferSize) {
        opts.onError?.("audit webhook buffer full: event dropped");
        return;
      }
      pending.push(JSON.stringify(event));
      if (pending.length >= batchSize) flush();
      else timer ??= setTimeout(flush, opts.maxBatchWaitMs);
    },
    async close() {
      closed = true;
      flush();
      await Promise.allSettled([...inFlight]);
      client.close();
    },
  };
}

/** POSTs one EventList, retrying with backoff; never rejects. */
async function post(
  opts: WebhookBackendOptions,
  client: Deno.HttpClient,
  items: string[],
  attempts: number,
): Promise<void> {
  const body = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${
    items.join(",")
  }]}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.config.token) headers.authorization = `Bearer ${opts.config.token}`;
  let backoff = opts.initialBackoffMs;
  for (let attempt = 1;; attempt++) {
    try {
      const res = await fetch(opts.config.server, {
        method: "POST",
        headers,
        body,
        client,
        signal: AbortSignal.timeout(30_000),
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) return;
      throw new Error(`HTTP ${res.status}`);
    } catch (err) {
      if (attempt >= attempts) {
        opts.onError?.(`audit webhook: ${items.length} events dropped: ${(err as Error).message}`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff *= 2;
    }
  }
}
