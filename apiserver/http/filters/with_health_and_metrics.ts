/**
 * The server's own paths, answered before any routing: the health checks (`/healthz`,
 * `/livez`, `/readyz` and their checks), `/metrics` and `/metrics/slis`.
 *
 * @module
 */
import type { HealthChecks } from "../../health/mod.ts";
import type { Filter } from "./filter.ts";

/** Answers health and metrics paths; passes everything else on. */
export function withHealthAndMetrics(
  health: HealthChecks,
  serveMetrics: (req: Request) => Promise<Response>,
  serveSlis?: (req: Request) => Promise<Response>,
): Filter {
  return (next) => async (ctx) => {
    const res = await health.handleHealth(ctx.req);
    if (res) return res;
    if (ctx.url.pathname === "/metrics") return await serveMetrics(ctx.req);
    if (serveSlis && ctx.url.pathname === "/metrics/slis") return await serveSlis(ctx.req);
    return await next(ctx);
  };
}
