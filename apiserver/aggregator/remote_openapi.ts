/**
 * Fetches a remote group version's OpenAPI v3 document from its extension API server, as
 * kube-aggregator's v3 aggregator does: the extension's `/openapi/v3` index names the
 * document's URL (with its hash), and the document is fetched from there. The answer is the
 * document's bytes and the uppercase hex SHA-512 our index publishes.
 *
 * @module
 */
import type { ApiServiceInfo } from "./api_service_cache.ts";
import type { ProxyTransport } from "./proxy_transport.ts";

/** A fetched OpenAPI v3 document. */
export interface OpenApiDoc {
  body: Uint8Array<ArrayBuffer>;
  /** Uppercase hex SHA-512 of `body`. */
  hash: string;
}

const HEADERS = {
  accept: "application/json",
  "x-remote-user": "system:kube-aggregator",
  "x-remote-group": "system:masters",
};

async function get(
  transport: ProxyTransport,
  api: ApiServiceInfo,
  path: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const res = await transport.send(api, {
    method: "GET",
    path,
    headers: HEADERS,
    timeoutMs: 5_000,
  });
  const body = new Uint8Array(await new Response(res.body).arrayBuffer());
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  return body;
}

/** The group version's document, or undefined when the extension's index does not list it. */
export async function fetchOpenApiV3(
  transport: ProxyTransport,
  api: ApiServiceInfo,
): Promise<OpenApiDoc | undefined> {
  const index = JSON.parse(new TextDecoder().decode(await get(transport, api, "/openapi/v3"))) as {
    paths?: Record<string, { serverRelativeURL?: string }>;
  };
  const entry = index.paths?.[`apis/${api.group}/${api.version}`];
  if (!entry?.serverRelativeURL?.startsWith("/")) return undefined;
  const body = await get(transport, api, entry.serverRelativeURL);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", body));
  const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
  return { body, hash };
}
