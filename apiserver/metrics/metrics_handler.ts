/**
 * metricsHandler: serves `GET /metrics` in the Prometheus text format.
 *
 * @module
 */
import { EXPOSITION_CONTENT_TYPE } from "./exposition_format.ts";
import type { MetricsRegistry } from "./metrics_registry.ts";

/**
 * Returns a handler answering with the registry's exposition (`/metrics` or `/metrics/slis`),
 * `Content-Type: text/plain; version=0.0.4; charset=utf-8`. HEAD gets the
 * headers only. Routing (the `/metrics` path) and authorization are the caller's.
 */
export function metricsHandler(
  registry: MetricsRegistry,
): (req: Request) => Promise<Response> {
  return async (req) => {
    const body = await registry.exposition();
    return new Response(req.method === "HEAD" ? null : body, {
      status: 200,
      headers: { "Content-Type": EXPOSITION_CONTENT_TYPE },
    });
  };
}
