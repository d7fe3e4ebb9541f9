/**
 * The authorizers that do not look at policy: AlwaysAllow, AlwaysDeny, and the superuser
 * bypass for `system:masters` that Kubernetes puts in front of every chain.
 *
 * @module
 */
import {
  SYSTEM_PRIVILEGED_GROUP,
  type UserInfo,
} from "../../../shared/api/authentication/v1/user_info.ts";
import type { Authorizer, Decision, RulesResult } from "./authorizer.ts";

function allRules(): RulesResult {
  return {
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
    incomplete: false,
    errors: [],
  };
}

function noRules(): RulesResult {
  return { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
}

/** Allows everything (mode AlwaysAllow). */
export class AlwaysAllowAuthorizer implements Authorizer {
  readonly name = "AlwaysAllow";
  authorize(): Promise<Decision> {
    return Promise.resolve({ decision: "allow", reason: "" });
  }
  rulesFor(): RulesResult {
    return allRules();
  }
}

/** Denies everything (mode AlwaysDeny). */
export class AlwaysDenyAuthorizer implements Authorizer {
  readonly name = "AlwaysDeny";
  authorize(): Promise<Decision> {
    return Promise.resolve({ decision: "deny", reason: "Everything is forbidden." });
  }
  rulesFor(): RulesResult {
    return noRules();
  }
}

/** Allows members of the given groups everything; no opinion on anyone else. */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly name = "PrivilegedGroups";
  readonly #groups: Set<string>;
  constructor(groups: readonly string[] = [SYSTEM_PRIVILEGED_GROUP]) {
    this.#groups = new Set(groups);
  }
  /** Whether the user belongs to a privileged group. */
  isPrivileged(user: UserInfo): boolean {
    return (user.groups ?? []).some((g) => this.#groups.has(g));
  }
  authorize(a: { user: UserInfo }): Promise<Decision> {
    return Promise.resolve(
      this.isPrivileged(a.user)
        ? { decision: "allow", reason: "" }
        : { decision: "noOpinion", reason: "" },
    );
  }
  /** Lists nothing: the superuser's rules show through RBAC's cluster-admin binding. */
  rulesFor(): RulesResult {
    return noRules();
  }
}

/**
 * Allows non-resource requests for the given paths (`/healthz`, or a prefix ending in `*`),
 * as kube's path authorizer (`--authorization-always-allow-paths`); no opinion on the rest.
 */
export class AlwaysAllowPathsAuthorizer implements Authorizer {
  readonly name = "AlwaysAllowPaths";
  readonly #exact: Set<string>;
  readonly #prefixes: string[];
  constructor(paths: readonly string[]) {
    const trimmed = paths.map((p) => p.replace(/^\/+/, ""));
    this.#exact = new Set(trimmed.filter((p) => !p.endsWith("*")));
    this.#prefixes = trimmed.filter((p) => p.endsWith("*")).map((p) => p.slice(0, -1));
  }
  authorize(a: { isResourceRequest: boolean; path: string }): Promise<Decision> {
    const path = a.path.replace(/^\/+/, "");
    const allowed = !a.isResourceRequest &&
      (this.#exact.has(path) || this.#prefixes.some((p) => path.startsWith(p)));
    return Promise.resolve({ decision: allowed ? "allow" : "noOpinion", reason: "" });
  }
  rulesFor(): RulesResult {
    return noRules();
  }
}
