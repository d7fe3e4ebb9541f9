/**
 * Builds the attributes of a resource request for authorizer tests.
 *
 * @module
 */
import type { AuthzAttributes } from "../../../../apiserver/auth/authz/authorizer.ts";

/**
 * A core/v1 resource request by `user` for `verb` on `resource` (`"pods"` or
 * `"pods/status"`), cluster-wide and unnamed unless `overrides` say otherwise.
 */
export function resourceAttributes(
  user: AuthzAttributes["user"],
  verb: string,
  resource: string,
  overrides: Partial<AuthzAttributes> = {},
): AuthzAttributes {
  const [res, sub] = resource.split("/");
  return {
    user,
    verb,
    isResourceRequest: true,
    path: "",
    apiGroup: "",
    apiVersion: "v1",
    resource: res,
    subresource: sub ?? "",
    namespace: "",
    name: "",
    ...overrides,
  };
}
