/**
 * Authorization: the authorizer chain decides whether the user may do what the request
 * addresses; a denial is 403 with Kubernetes' message.
 *
 * @module
 */
import { StatusError } from "../../../shared/errors/status_error.ts";
import {
  type Authorizer,
  type AuthzAttributes,
  forbiddenMessage,
} from "../../auth/authz/authorizer.ts";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { RequestInfo } from "../request_info.ts";
import type { Filter } from "./filter.ts";

/** Passes requests `authorizer` allows; throws 403 for the others. */
export function withAuthorization(authorizer: Authorizer): Filter {
  return (next) => async (ctx) => {
    if (!ctx.user) throw new Error("withAuthorization() needs an authenticated user");
    await authorize(authorizer, ctx.user, ctx.info, ctx.auditAnnotations);
    return await next(ctx);
  };
}

/** The attributes the authorizer sees of a request. */
function authzAttributesOf(user: UserInfo, info: RequestInfo): AuthzAttributes {
  return {
    user,
    verb: info.isResourceRequest ? info.verb : info.verb.toLowerCase(),
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

async function authorize(
  authorizer: Authorizer,
  user: UserInfo,
  info: RequestInfo,
  audit: Record<string, string> | undefined,
) {
  const attrs = authzAttributesOf(user, info);
  const d = await authorizer.authorize(attrs);
  if (audit) {
    // kube's audit annotations of the decision.
    audit["authorization.k8s.io/decision"] = d.decision === "allow" ? "allow" : "forbid";
    audit["authorization.k8s.io/reason"] = d.reason ?? "";
  }
  if (d.decision === "allow") return;
  const message = forbiddenMessage(attrs) + (d.reason ? `: ${d.reason}` : "");
  if (!info.isResourceRequest) {
    throw new StatusError({ code: 403, reason: "Forbidden", message, details: {} });
  }
  throw StatusError.forbidden(
    { group: info.apiGroup, resource: info.resource },
    info.name,
    message,
  );
}
