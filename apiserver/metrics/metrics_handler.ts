/**
 * metricsHandler: serves `GET /metrics` (and `/metrics/slis`) in the Prometheus text format.
 *
 * @module
 */
import { EXPOSITION_CONTENT_TYPE } from "./exposition_format.ts";
import type { MetricsRegistry } from "./metrics_registry.ts";

/**
 * Returns a handler answering with the registry's exposition (`/metrics` or `/metrics/slis`),
 * `Content-Type: text/plain; version=0.0.4; charset=utf-8`. HEAD gets the headers only; DELETE
 * resets the registry's labelled metrics and answers `metrics reset`, as kube-apiserver does
 * with profiling on (its default). Routing and authorization are the caller's.
 */
export function metricsHandler(
  registry: MetricsRegistry,
): (req: Request) => Promise<Response> {
  return async (req) => {
    if (req.method === "DELETE") {
      registry.reset();
      return new Response("metrics reset\n", {
        status: 200,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      });
    }
    const body = await registry.exposition();
    return new Response(req.method === "HEAD" ? null : body, {
      status: 200,
      headers: { "Content-Type": EXPOSITION_CONTENT_TYPE },
    });
  };
}
