/**
 * Kubernetes' CEL authorizer library over an authorizer the caller supplies:
 * `authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)]
 * [.fieldSelector(f)][.labelSelector(l)].check(verb)`, `authorizer.path(p).check(verb)` and
 * `authorizer.serviceAccount(ns, name)`; decisions answer `allowed()`, `reason()`, `errored()`
 * and `error()`.
 *
 * @module
 */
import type { Environment } from "@marcbachmann/cel-js";

const sync = { async: false };

/** The user a check is made for. */
export interface CelAuthorizerUser {
  /** User name, e.g. `system:serviceaccount:ns:sa`. */
  name: string;
  /** User UID, if any. */
  uid?: string;
  /** Groups. */
  groups: string[];
  /** Extra attributes. */
  extra?: Record<string, string[]>;
}

/** What is asked of the authorizer, mirroring Kubernetes' authorizer attributes. */
export interface CelAuthorizationAttributes {
  /** The user the check is for. */
  user: CelAuthorizerUser;
  /** API verb (`get`, `list`, ...) or lowercased HTTP verb for non-resource paths. */
  verb: string;
  /** True for resource checks, false for path checks. */
  resourceRequest: boolean;
  /** API group, "" for core. */
  apiGroup: string;
  /** Resource (plural). */
  resource: string;
  /** Subresource, "" if none. */
  subresource: string;
  /** Namespace, "" if cluster-wide. */
  namespace: string;
  /** Object name, "" if none. */
  name: string;
  /** Non-resource path for path checks. */
  path: string;
  /** Field selector, when given (alpha `AuthorizeWithSelectors`). */
  fieldSelector: string;
  /** Label selector, when given (alpha `AuthorizeWithSelectors`). */
  labelSelector: string;
}

/** The authorizer's answer. */
export interface CelAuthorizationDecision {
  /** Kubernetes' three-valued decision. */
  decision: "allow" | "deny" | "noOpinion";
  /** Reason text, may be "". */
  reason: string;
  /** An evaluation error, if the authorizer failed. */
  error?: string;
}

/** The interface callers implement (synchronously, e.g. over the RBAC rule cache). */
export interface CelAuthorizer {
  /** Decides one request. Must not throw; return `error` instead. */
  authorize(attrs: CelAuthorizationAttributes): CelAuthorizationDecision;
}

/** The value of the `authorizer` variable: an authorizer bound to a user. */
export class AuthorizerValue {
  /** Binds `authorizer` to `user`. */
  constructor(readonly authorizer: CelAuthorizer, readonly user: CelAuthorizerUser) {}
}

/** `authorizer.path(p)`. */
export class PathCheck {
  /** Creates a path check. */
  constructor(readonly authz: AuthorizerValue, readonly path: string) {}
}

/** `authorizer.group(g)`. */
export class GroupCheck {
  /** Creates a group check. */
  constructor(readonly authz: AuthorizerValue, readonly group: string) {}
}

/** `authorizer.group(g).resource(r)...`. Immutable: each setter returns a copy. */
export class ResourceCheck {
  /** Creates a resource check. */
  constructor(
    readonly authz: AuthorizerValue,
    readonly fields: Readonly<
      Omit<CelAuthorizationAttributes, "user" | "verb" | "resourceRequest" | "path">
    >,
  ) {}

  /** Returns a copy with one field set. */
  with(
    key: "subresource" | "namespace" | "name" | "fieldSelector" | "labelSelector",
    v: string,
  ): ResourceCheck {
    return new ResourceCheck(this.authz, { ...this.fields, [key]: v });
  }
}

/** The result of `check()`. */
export class Decision {
  /** Wraps an authorizer decision. */
  constructor(readonly d: CelAuthorizationDecision) {}
}

function decide(authz: AuthorizerValue, attrs: Omit<CelAuthorizationAttributes, "user">): Decision {
  try {
    return new Decision(authz.authorizer.authorize({ ...attrs, user: authz.user }));
  } catch (e) {
    return new Decision({
      decision: "noOpinion",
      reason: "",
      error: e instanceof Error ? e.message : String(e),
    });
  }
}

/** Builds the user a service account authenticates as. */
export function serviceAccountUser(namespace: string, name: string): CelAuthorizerUser {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: [
      "system:serviceaccounts",
      `system:serviceaccounts:${namespace}`,
      "system:authenticated",
    ],
  };
}

const A = "kubernetes.authorization.Authorizer";
const P = "kubernetes.authorization.PathCheck";
const G = "kubernetes.authorization.GroupCheck";
const R = "kubernetes.authorization.ResourceCheck";
const D = "kubernetes.authorization.Decision";

/** The CEL type name of the `authorizer` variable. */
export const AUTHORIZER_TYPE = A;

/** Registers the authorizer types and functions on `env`. */
export function registerAuthorizerLibrary(env: Environment): void {
  env.registerType(A, AuthorizerValue);
  env.registerType(P, PathCheck);
  env.registerType(G, GroupCheck);
  env.registerType(R, ResourceCheck);
  env.registerType(D, Decision);
  env.registerFunction(
    `${A}.path(string): ${P}`,
    (a: AuthorizerValue, p: string) => new PathCheck(a, p),
    sync,
  );
  env.registerFunction(
    `${A}.group(string): ${G}`,
    (a: AuthorizerValue, g: string) => new GroupCheck(a, g),
    sync,
  );
  env.registerFunction(
    `${A}.serviceAccount(string, string): ${A}`,
    (a: AuthorizerValue, ns: string, name: string) =>
      new AuthorizerValue(a.authorizer, serviceAccountUser(ns, name)),
    sync,
  );
  env.registerFunction(
    `${G}.resource(string): ${R}`,
    (g: GroupCheck, r: string) =>
      new ResourceCheck(g.authz, {
        apiGroup: g.group,
        resource: r,
        subresource: "",
        namespace: "",
        name: "",
        fieldSelector: "",
        labelSelector: "",
      }),
    sync,
  );
  for (
    const key of ["subresource", "namespace", "name", "fieldSelector", "labelSelector"] as const
  ) {
    env.registerFunction(
      `${R}.${key}(string): ${R}`,
      (r: ResourceCheck, v: string) => r.with(key, v),
      sync,
    );
  }
  env.registerFunction(
    `${R}.check(string): ${D}`,
    (r: ResourceCheck, verb: string) =>
      decide(r.authz, { ...r.fields, verb, resourceRequest: true, path: "" }),
    sync,
  );
  env.registerFunction(
    `${P}.check(string): ${D}`,
    (p: PathCheck, verb: string) =>
      decide(p.authz, {
        verb: verb.toLowerCase(),
        resourceRequest: false,
        path: p.path,
        apiGroup: "",
        resource: "",
        subresource: "",
        namespace: "",
        name: "",
        fieldSelector: "",
        labelSelector: "",
      }),
    sync,
  );
  env.registerFunction(`${D}.allowed(): bool`, (d: Decision) => d.d.decision === "allow", sync);
  env.registerFunction(`${D}.reason(): string`, (d: Decision) => d.d.reason, sync);
  env.registerFunction(`${D}.errored(): bool`, (d: Decision) => d.d.error !== undefined, sync);
  env.registerFunction(`${D}.error(): string`, (d: Decision) => d.d.error ?? "", sync);
}
