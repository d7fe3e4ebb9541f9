/**
 * The RBAC authorizer: allows a request when a rule of a role bound to the user (cluster-wide
 * by a ClusterRoleBinding, or in the request's namespace by a RoleBinding) allows it;
 * otherwise no opinion. Reads only the in-memory {@link RbacIndex}.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type {
  Authorizer,
  AuthzAttributes,
  Decision,
  NonResourceRule,
  ResourceRule,
  RuleResolver,
  RulesResult,
} from "./authorizer.ts";
import type { RbacIndex } from "./rbac_index.ts";
import type { PolicyRule, RoleRef } from "./rbac_types.ts";
import { ruleAllows } from "./rule_matches.ts";

/** The RBAC authorizer over an index. */
export class RbacAuthorizer implements Authorizer, RuleResolver {
  readonly name = "RBAC";
  constructor(readonly index: RbacIndex) {}

  /** Decides synchronously (the async form wraps this). */
  decide(a: AuthzAttributes): Decision {
    let allowedBy = "";
    const errors: string[] = [];
    this.index.visitRulesFor(a.user, a.namespace, (source, rule, err) => {
      if (err) {
        errors.push(err);
        return true;
      }
      if (rule && ruleAllows(a, rule)) {
        allowedBy = source();
        return false;
      }
      return true;
    });
    if (allowedBy) return { decision: "allow", reason: `RBAC: allowed by ${allowedBy}` };
    return {
      decision: "noOpinion",
      reason: errors.length > 0 ? `RBAC: [${errors.join(", ")}]` : "",
    };
  }

  /** Decides on a request. */
  authorize(a: AuthzAttributes): Promise<Decision> {
    return Promise.resolve(this.decide(a));
  }

  /** Every rule `user` holds in `namespace`, as stored (resource and non-resource apart). */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.index.visitRulesFor(user, namespace, (_source, rule, err) => {
      if (err) errors.push(err);
      else if (rule) rules.push(rule);
      return true;
    });
    return { rules, errors };
  }

  /** The rules of the role a binding in `namespace` refers to, or the NotFound message. */
  roleRefRules(ref: RoleRef, namespace: string): PolicyRule[] | { error: string } {
    return this.index.roleRefRules(ref, namespace);
  }

  /** The rules for SelfSubjectRulesReview. */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = this.policyRulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if ((r.resources?.length ?? 0) > 0) {
        const rr: ResourceRule = {
          verbs: [...r.verbs],
          apiGroups: [...(r.apiGroups ?? [])],
          resources: [...(r.resources ?? [])],
        };
        if (r.resourceNames?.length) rr.resourceNames = [...r.resourceNames];
        resourceRules.push(rr);
      }
      if ((r.nonResourceURLs?.length ?? 0) > 0) {
        nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs!] });
      }
    }
    return { resourceRules, nonResourceRules, incomplete: errors.length > 0, errors };
  }
}
