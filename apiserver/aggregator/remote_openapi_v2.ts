/**
 * Fetches an extension API server's OpenAPI v2 document (`/openapi/v2` as JSON, as
 * `system:kube-aggregator`), with the ETag of the last fetch in `If-None-Match`, as
 * kube-aggregator's downloader does: 304 keeps the cached document.
 *
 * @module
 */
import type { ApiServiceInfo } from "./api_service_cache.ts";
import type { ProxyTransport } from "./proxy_transport.ts";

/** A fetched OpenAPI v2 document and its ETag. */
export interface OpenApiV2Doc {
  doc: Record<string, unknown>;
  etag?: string;
}

/** The document; `cached` again when the extension answers 304 Not Modified. */
export async function fetchOpenApiV2(
  transport: ProxyTransport,
  api: ApiServiceInfo,
  cached?: OpenApiV2Doc,
): Promise<OpenApiV2Doc> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "x-remote-user": "system:kube-aggregator",
    "x-remote-group": "system:masters",
  };
  if (cached?.etag) headers["if-none-match"] = cached.etag;
  const res = await transport.send(api, {
    method: "GET",
    path: "/openapi/v2",
    headers,
    timeoutMs: 10_000,
  });
  const text = await new Response(res.body).text();
  if (res.status === 304 && cached) return cached;
  if (res.status !== 200) throw new Error(`/openapi/v2 answered ${res.status}`);
  const doc = JSON.parse(text);
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw new Error("/openapi/v2 is not a JSON object");
  }
  return { doc, etag: res.headers.get("etag") ?? undefined };
}
