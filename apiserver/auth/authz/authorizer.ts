/**
 * The authorizer contract and the chain: the first allow or deny ends evaluation; no opinion
 * from every authorizer is 403 Forbidden.
 *
 * @module
 */
import type { UserInfo } from "../../registry/generic/admission.ts";

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

/** One authorizer. */
export interface Authorizer {
  readonly name: string;
  authorize(attrs: AuthzAttributes): Promise<Decision>;
}

/** Runs authorizers in order. */
export class AuthorizerChain implements Authorizer {
  readonly name = "chain";
  constructor(readonly authorizers: Authorizer[]) {}

  async authorize(attrs: AuthzAttributes): Promise<Decision> {
    const reasons: string[] = [];
    for (const a of this.authorizers) {
      const d = await a.authorize(attrs);
      if (d.decision !== "noOpinion") return d;
      if (d.reason) reasons.push(d.reason);
    }
    return { decision: "noOpinion", reason: reasons.join(", ") };
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
