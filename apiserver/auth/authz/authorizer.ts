/**
 * The authorizer contract and the chain: the first allow or deny ends evaluation; no opinion
 * from every authorizer is 403 Forbidden.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { PolicyRule, RoleRef } from "./rbac_types.ts";

/** The attributes of a request an authorizer decides on. */
export interface AuthzAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** An authorizer's decision. */
export interface Decision {
  decision: "allow" | "deny" | "noOpinion";
  reason: string;
}

/** A rule of resources a user may act on (SelfSubjectRulesReview's `resourceRules`). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A rule of non-resource URLs a user may request (`nonResourceRules`). */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What an authorizer can tell about the rules of a user in a namespace. */
export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when the authorizer cannot list everything it would allow. */
  incomplete: boolean;
  /** Errors met while resolving rules. */
  errors: string[];
}

/** One authorizer. */
export interface Authorizer {
  readonly name: string;
  authorize(attrs: AuthzAttributes): Promise<Decision>;
  /** The rules `user` holds in `namespace` ("" = cluster-wide), if the authorizer can list them. */
  rulesFor?(user: UserInfo, namespace: string): RulesResult;
}

/**
 * Resolves RBAC rules (Kubernetes' `AuthorizationRuleResolver`): what escalation checks compare
 * a role or binding against.
 */
export interface RuleResolver {
  /** Every rule `user` holds in `namespace` ("" = cluster-wide), and resolution errors. */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] };
  /** The rules of the role `ref` names, or the NotFound message when it does not exist. */
  roleRefRules(ref: RoleRef, namespace: string): PolicyRule[] | { error: string };
}

/** Runs authorizers in order. */
export class AuthorizerChain implements Authorizer {
  readonly name = "chain";
  /**
   * The authorizers, in order. A reload of the authorization configuration replaces the array
   * (never mutates it), so a decision in progress finishes with the list it started with.
   */
  constructor(public authorizers: Authorizer[]) {}

  async authorize(attrs: AuthzAttributes): Promise<Decision> {
    const reasons: string[] = [];
    for (const a of this.authorizers) {
      const d = await a.authorize(attrs);
      if (d.decision !== "noOpinion") return d;
      if (d.reason) reasons.push(d.reason);
    }
    return { decision: "noOpinion", reason: reasons.join(", ") };
  }

  /** The union of the rules of every authorizer that can list them. */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
      errors: [],
    };
    for (const a of this.authorizers) {
      if (!a.rulesFor) {
        out.incomplete = true;
        continue;
      }
      const r = a.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      out.incomplete ||= r.incomplete;
      out.errors.push(...r.errors);
    }
    return out;
  }
}

/** Builds Kubernetes' Forbidden message for a denied request. */
export function forbiddenMessage(a: AuthzAttributes): string {
  if (!a.isResourceRequest) {
    return `User "${a.user.username}" cannot ${a.verb} path "${a.path}"`;
  }
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  return `User "${a.user.username}" cannot ${a.verb} resource "${res}" in API group "${a.apiGroup}" ${scope}`;
}
