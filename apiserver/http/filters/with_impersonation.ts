/**
 * Impersonation: the `Impersonate-*` headers make an authenticated request run as another
 * identity, when the authorizer allows the `impersonate` verb on each value (400, 403
 * otherwise). See {@link impersonate}.
 *
 * @module
 */
import { impersonate } from "../../auth/impersonation.ts";
import type { Authorizer } from "../../auth/authz/authorizer.ts";
import type { Filter } from "./filter.ts";

/** Replaces the context's user by the impersonated one, if the request asks for it. */
export function withImpersonation(authorizer: Authorizer): Filter {
  return (next) => async (ctx) => {
    if (!ctx.user) throw new Error("withImpersonation() needs an authenticated user");
    ctx.user = await impersonate(ctx.req, ctx.user, authorizer, ctx.conn.headerNames);
    return await next(ctx);
  };
}
