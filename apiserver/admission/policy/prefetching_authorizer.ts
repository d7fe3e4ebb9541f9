/**
 * The `authorizer` variable of admission policies over the server's (asynchronous) authorizer
 * chain. CEL evaluates synchronously, so a check whose decision is not known yet answers "no
 * opinion" and is remembered; the caller then fetches the pending decisions and evaluates
 * again. Evaluation is deterministic, so the final run sees every decision it asks for. The
 * decisions are kept for the request, as Kubernetes' caching authorizer keeps them.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { Authorizer, AuthzAttributes } from "../../auth/authz/authorizer.ts";
import type {
  CelAuthorizationAttributes,
  CelAuthorizationDecision,
  CelAuthorizer,
} from "../../cel/mod.ts";

function keyOf(a: CelAuthorizationAttributes): string {
  return JSON.stringify([
    a.user.name,
    a.user.uid ?? "",
    a.user.groups,
    a.user.extra ?? {},
    a.verb,
    a.resourceRequest,
    a.apiGroup,
    a.resource,
    a.subresource,
    a.namespace,
    a.name,
    a.path,
    a.fieldSelector,
    a.labelSelector,
  ]);
}

function toAuthzAttributes(a: CelAuthorizationAttributes): AuthzAttributes {
  const user: UserInfo = { username: a.user.name, groups: [...a.user.groups] };
  if (a.user.uid) user.uid = a.user.uid;
  if (a.user.extra) user.extra = a.user.extra;
  return {
    user,
    verb: a.verb,
    isResourceRequest: a.resourceRequest,
    path: a.path,
    apiGroup: a.apiGroup,
    apiVersion: "*",
    resource: a.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
  };
}

/** A per-request CEL authorizer answering from fetched decisions. */
export class PrefetchingAuthorizer implements CelAuthorizer {
  readonly #authorizer: Authorizer;
  readonly #decisions = new Map<string, CelAuthorizationDecision>();
  readonly #pending = new Map<string, CelAuthorizationAttributes>();

  /** Asks `authorizer` (the server's chain) for the decisions. */
  constructor(authorizer: Authorizer) {
    this.#authorizer = authorizer;
  }

  /** The known decision, or "no opinion" with the check remembered as pending. */
  authorize(attrs: CelAuthorizationAttributes): CelAuthorizationDecision {
    const key = keyOf(attrs);
    const known = this.#decisions.get(key);
    if (known) return known;
    this.#pending.set(key, attrs);
    return { decision: "noOpinion", reason: "" };
  }

  /** Whether a check asked for a decision not fetched yet. */
  get hasPending(): boolean {
    return this.#pending.size > 0;
  }

  /** Fetches every pending decision. */
  async fetchPending(): Promise<void> {
    const pending = [...this.#pending];
    this.#pending.clear();
    await Promise.all(pending.map(async ([key, attrs]) => {
      try {
        const d = await this.#authorizer.authorize(toAuthzAttributes(attrs));
        this.#decisions.set(key, { decision: d.decision, reason: d.reason });
      } catch (e) {
        this.#decisions.set(key, {
          decision: "noOpinion",
          reason: "",
          error: e instanceof Error ? e.message : String(e),
        });
      }
    }));
  }
}
