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
