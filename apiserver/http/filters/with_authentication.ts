/**
 * Authentication: the authenticator chain decides who sends the request; a request nobody
 * vouches for (not even anonymous) is 401. Outcomes and latency go to the metrics.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import type { Authenticator } from "../../auth/authn/authenticator.ts";
import type { ApiServerMetrics } from "../../metrics/mod.ts";
import type { Filter } from "./filter.ts";

/** Sets the context's user from `authenticator`, or throws 401. */
export function withAuthentication(
  authenticator: Authenticator,
  metrics: ApiServerMetrics,
  logger: Logger,
): Filter {
  return (next) => async (ctx) => {
    const started = performance.now();
    const result = await authenticator.authenticate(ctx.req, ctx.conn);
    const seconds = (performance.now() - started) / 1000;
    if (result.kind === "user") {
      if (result.method !== "anonymous") metrics.observeAuthentication("success", seconds);
      ctx.user = result.user;
      return await next(ctx);
    }
    metrics.observeAuthentication("failure", seconds);
    if (result.kind === "invalid") {
      logger.v(1).info("authentication failed", { method: result.method, reason: result.reason });
    }
    throw StatusError.unauthorized();
  };
}
