/**
 * Records every answered request: the apiserver_request_* metrics and, at verbosity 2, one
 * `HTTP` log line (verb, URI, latency, user agent, user, status).
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import type { ApiServerMetrics } from "../../metrics/mod.ts";
import type { Filter, RequestContext } from "./filter.ts";

/** Observes each response of the filters behind it in `metrics` and `logger`. */
export function withRequestLog(metrics: ApiServerMetrics, logger: Logger): Filter {
  return (next) => async (ctx) => {
    const res = await next(ctx);
    observe(metrics, logger, ctx, res);
    return res;
  };
}

function scopeOf(ctx: RequestContext): "resource" | "namespace" | "cluster" | "" {
  const info = ctx.info;
  if (!info.isResourceRequest) return "";
  return info.name ? "resource" : info.namespace ? "namespace" : "cluster";
}

function observe(
  metrics: ApiServerMetrics,
  logger: Logger,
  ctx: RequestContext,
  res: Response,
): void {
  const { req, url, info, user } = ctx;
  const seconds = (performance.now() - ctx.started) / 1000;
  metrics.observeRequest({
    method: req.method,
    scope: scopeOf(ctx),
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    code: res.status,
    durationSeconds: seconds,
    watch: info.verb === "watch",
    contentType: req.headers.get("content-type") ?? undefined,
    dryRun: url.searchParams.getAll("dryRun"),
    deprecated: ctx.deprecated !== undefined,
    removedRelease: ctx.deprecated?.removedRelease,
  });
  const v2 = logger.v(2);
  if (v2.enabled) {
    v2.info("HTTP", {
      verb: info.verb,
      uri: url.pathname + url.search,
      latency: `${(seconds * 1000).toFixed(3)}ms`,
      userAgent: req.headers.get("user-agent") ?? "",
      user: user?.username ?? "",
      resp: res.status,
    });
  }
}
