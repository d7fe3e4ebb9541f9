/**
 * The built-in policy that holds until RBAC is configured: `system:masters` may do anything;
 * everyone may read the health and version endpoints; authenticated users may read discovery
 * and OpenAPI. Everything else gets no opinion (403).
 *
 * @module
 */
import type { Authorizer, AuthzAttributes, Decision } from "./authorizer.ts";

const PUBLIC_PATHS = [/^\/(healthz|livez|readyz)(\/.*)?$/, /^\/version\/?$/];
const DISCOVERY_PATHS = [
  /^\/apis?\/?$/,
  /^\/apis?\/[^/]+\/?$/,
  /^\/apis\/[^/]+\/[^/]+\/?$/,
  /^\/openapi\/.*$/,
];

/** Allows system:masters everything, public endpoints to everyone. */
export class BootstrapPolicyAuthorizer implements Authorizer {
  readonly name = "bootstrap";

  authorize(a: AuthzAttributes): Promise<Decision> {
    if (a.user.groups.includes("system:masters")) {
      return Promise.resolve({ decision: "allow", reason: "" });
    }
    if (!a.isResourceRequest && (a.verb === "get" || a.verb === "head")) {
      if (PUBLIC_PATHS.some((r) => r.test(a.path))) {
        return Promise.resolve({ decision: "allow", reason: "" });
      }
      if (
        a.user.groups.includes("system:authenticated") &&
        DISCOVERY_PATHS.some((r) => r.test(a.path))
      ) return Promise.resolve({ decision: "allow", reason: "" });
    }
    return Promise.resolve({ decision: "noOpinion", reason: "" });
  }
}
