/**
 * The in-memory index of RBAC objects the RBAC authorizer evaluates: roles and cluster roles
 * by name, bindings by subject (user name or group) so a decision touches only the bindings
 * of the asking user. Kept current by {@link RbacIndex.apply} from a ResourceFeed.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { ResourceEvent } from "./resource_feed.ts";
import {
  type BindingObject,
  type PolicyRule,
  RBAC_GROUP,
  type RoleObject,
  type RoleRef,
  type Subject,
} from "./rbac_types.ts";

/** Storage key prefixes of the four RBAC kinds. */
export const RBAC_PREFIXES = {
  roles: `/registry/${RBAC_GROUP}/roles/`,
  clusterroles: `/registry/${RBAC_GROUP}/clusterroles/`,
  rolebindings: `/registry/${RBAC_GROUP}/rolebindings/`,
  clusterrolebindings: `/registry/${RBAC_GROUP}/clusterrolebindings/`,
} as const;

/**
 * Called for every rule that applies to a user; `source` describes the binding and role
 * ("" with an error), `err` a binding whose role could not be resolved. Return false to stop.
 */
export type RuleVisitor = (
  source: () => string,
  rule: PolicyRule | undefined,
  err?: string,
) => boolean;

/** The service account user name of `namespace`/`name`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case "User":
      return `u:${s.name}`;
    case "Group":
      return `g:${s.name}`;
    case "ServiceAccount":
      return `u:${serviceAccountUsername(s.namespace || bindingNamespace, s.name)}`;
    default:
      return undefined;
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") {
    return `ServiceAccount "${s.name}/${s.namespace || bindingNamespace}"`;
  }
  return `${s.kind} "${s.name}"`;
}

/** Keys under which the bindings of `user` are indexed. */
function userKeys(user: UserInfo): string[] {
  const keys = [`u:${user.username}`];
  for (const g of user.groups ?? []) keys.push(`g:${g}`);
  return keys;
}

/** The NotFound message of a missing role, as Kubernetes' listers word it. */
export function roleNotFoundMessage(kind: string, name: string): string {
  return `${kind.toLowerCase()}.${RBAC_GROUP} "${name}" not found`;
}

function addTo(index: Map<string, Set<string>>, key: string, value: string): void {
  let set = index.get(key);
  if (!set) index.set(key, set = new Set());
  set.add(value);
}

function removeFrom(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}

/** Roles, cluster roles and bindings, indexed for evaluation. */
export class RbacIndex {
  readonly #roles = new Map<string, RoleObject>();
  readonly #clusterRoles = new Map<string, RoleObject>();
  readonly #roleBindings = new Map<string, BindingObject>();
  readonly #clusterRoleBindings = new Map<string, BindingObject>();
  /** subject key → names of cluster role bindings. */
  readonly #crbBySubject = new Map<string, Set<string>>();
  /** namespace → subject key → names of role bindings. */
  readonly #rbBySubject = new Map<string, Map<string, Set<string>>>();
  readonly #listeners = new Set<(events: ResourceEvent[]) => void>();

  /** Applies events from a feed of the four RBAC prefixes. */
  apply(events: readonly ResourceEvent[]): void {
    for (const e of events) {
      const deleted = e.type === "DELETED";
      if (e.key.startsWith(RBAC_PREFIXES.clusterroles)) {
        const name = e.object.metadata.name ?? "";
        if (deleted) this.#clusterRoles.delete(name);
        else this.#clusterRoles.set(name, e.object as RoleObject);
      } else if (e.key.startsWith(RBAC_PREFIXES.roles)) {
        const id = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
        if (deleted) this.#roles.delete(id);
        else this.#roles.set(id, e.object as RoleObject);
      } else if (e.key.startsWith(RBAC_PREFIXES.clusterrolebindings)) {
        this.#setClusterRoleBinding(e.object as BindingObject, deleted);
      } else if (e.key.startsWith(RBAC_PREFIXES.rolebindings)) {
        this.#setRoleBinding(e.object as BindingObject, deleted);
      }
    }
    for (const l of this.#listeners) l([...events]);
  }

  /** Calls `listener` after every applied batch. Returns an unsubscribe function. */
  onChange(listener: (events: ResourceEvent[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #setClusterRoleBinding(b: BindingObject, deleted: boolean): void {
    const name = b.metadata.name ?? "";
    const old = this.#clusterRoleBindings.get(name);
    if (old) {
      for (const s of old.subjects ?? []) {
        const k = subjectKey(s, "");
        if (k) removeFrom(this.#crbBySubject, k, name);
      }
      this.#clusterRoleBindings.delete(name);
    }
    if (deleted) return;
    this.#clusterRoleBindings.set(name, b);
    for (const s of b.subjects ?? []) {
      const k = subjectKey(s, "");
      if (k) addTo(this.#crbBySubject, k, name);
    }
  }

  #setRoleBinding(b: BindingObject, deleted: boolean): void {
    const ns = b.metadata.namespace ?? "";
    const name = b.metadata.name ?? "";
    const id = `${ns}/${name}`;
    let byNs = this.#rbBySubject.get(ns);
    const old = this.#roleBindings.get(id);
    if (old && byNs) {
      for (const s of old.subjects ?? []) {
        const k = subjectKey(s, ns);
        if (k) removeFrom(byNs, k, name);
      }
      this.#roleBindings.delete(id);
    }
    if (deleted) {
      if (byNs?.size === 0) this.#rbBySubject.delete(ns);
      return;
    }
    this.#roleBindings.set(id, b);
    if (!byNs) this.#rbBySubject.set(ns, byNs = new Map());
    for (const s of b.subjects ?? []) {
      const k = subjectKey(s, ns);
      if (k) addTo(byNs, k, name);
    }
  }

  /** A cluster role by name. */
  clusterRole(name: string): RoleObject | undefined {
    return this.#clusterRoles.get(name);
  }

  /** Every cluster role. */
  clusterRoles(): RoleObject[] {
    return [...this.#clusterRoles.values()];
  }

  /** A role by namespace and name. */
  role(namespace: string, name: string): RoleObject | undefined {
    return this.#roles.get(`${namespace}/${name}`);
  }

  /** Counts of indexed objects (for diagnostics and benchmarks). */
  get size(): { roles: number; clusterRoles: number; bindings: number; clusterBindings: number } {
    return {
      roles: this.#roles.size,
      clusterRoles: this.#clusterRoles.size,
      bindings: this.#roleBindings.size,
      clusterBindings: this.#clusterRoleBindings.size,
    };
  }

  /**
   * The rules of the role a binding in `namespace` ("" for a cluster binding) refers to, or
   * the NotFound message when the role does not exist.
   */
  roleRefRules(ref: RoleRef, namespace: string): PolicyRule[] | { error: string } {
    if (ref.kind === "ClusterRole") {
      const r = this.#clusterRoles.get(ref.name);
      return r ? r.rules ?? [] : { error: roleNotFoundMessage("ClusterRole", ref.name) };
    }
    if (ref.kind === "Role" && namespace) {
      const r = this.#roles.get(`${namespace}/${ref.name}`);
      return r ? r.rules ?? [] : { error: roleNotFoundMessage("Role", ref.name) };
    }
    return { error: `unsupported role reference kind: "${ref.kind}"` };
  }

  /**
   * Visits every rule granted to `user` cluster-wide and, with a `namespace`, in it. Stops
   * when the visitor returns false.
   */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    const keys = userKeys(user);
    const seen = new Set<string>();
    for (const k of keys) {
      for (const name of this.#crbBySubject.get(k) ?? []) {
        if (seen.has(name)) continue;
        seen.add(name);
        const b = this.#clusterRoleBindings.get(name);
        if (!b || b.roleRef?.kind !== "ClusterRole") continue;
        if (!this.#visitBinding(b, "ClusterRoleBinding", "", user, k, visitor)) return;
      }
    }
    if (!namespace) return;
    const byNs = this.#rbBySubject.get(namespace);
    if (!byNs) return;
    seen.clear();
    for (const k of keys) {
      for (const name of byNs.get(k) ?? []) {
        if (seen.has(name)) continue;
        seen.add(name);
        const b = this.#roleBindings.get(`${namespace}/${name}`);
        if (!b) continue;
        if (!this.#visitBinding(b, "RoleBinding", namespace, user, k, visitor)) return;
      }
    }
  }

  #visitBinding(
    b: BindingObject,
    bindingKind: string,
    namespace: string,
    user: UserInfo,
    key: string,
    visitor: RuleVisitor,
  ): boolean {
    const rules = this.roleRefRules(b.roleRef, namespace);
    if ("error" in rules) return visitor(() => "", undefined, rules.error);
    const source = () => {
      const subject = (b.subjects ?? []).find((s) => subjectKey(s, namespace) === key);
      const who = subject ? describeSubject(subject, namespace) : `User "${user.username}"`;
      const where = namespace ? ` in namespace "${namespace}"` : "";
      return `${bindingKind} "${b.metadata.name}" of ${b.roleRef.kind} "${b.roleRef.name}"` +
        ` to ${who}${where}`;
    };
    for (const rule of rules) if (!visitor(source, rule)) return false;
    return true;
  }
}
