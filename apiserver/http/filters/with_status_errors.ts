/**
 * Renders whatever the filters behind it throw as a Kubernetes `Status` in the format the
 * client accepts, with the warnings recorded so far; server errors (5xx) are logged with
 * their cause.
 *
 * @module
 */
import { toStatusError } from "../../../shared/errors/status_error.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { errorFormat } from "../negotiation.ts";
import { errorResponse } from "../respond.ts";
import type { Filter } from "./filter.ts";

/** Answers a thrown error with its Status response. */
export function withStatusErrors(logger: Logger): Filter {
  return (next) => async (ctx) => {
    try {
      return await next(ctx);
    } catch (err) {
      const status = toStatusError(err);
      if (status.code >= 500) {
        // The cause (a storage outage's detail, say) is for the log; the client gets the Status.
        const cause = err instanceof Error && err.cause !== undefined ? String(err.cause) : "";
        logger.error("request failed", {
          path: ctx.url.pathname,
          err: String(err),
          ...(cause ? { cause } : {}),
        });
      }
      const res = errorResponse(status, errorFormat(ctx.req.headers.get("accept")));
      // Warnings recorded before the error are sent with it, as kube's recorder does.
      for (const w of ctx.warnings) {
        try {
          res.headers.append("Warning", w);
        } catch { /* not a legal header value: dropped */ }
      }
      return res;
    }
  };
}
