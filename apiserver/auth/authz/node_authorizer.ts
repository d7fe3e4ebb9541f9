/**
 * The Node authorizer (mode Node), for node agents: user `system:node:<name>` in group
 * `system:nodes`. Secrets, ConfigMaps, PersistentVolumeClaims and service account tokens are
 * readable only when a pod bound to that node references them (the {@link NodeGraph}); leases
 * only the node's own in `kube-node-lease`; everything else by the static node rules
 * (services, endpoints, nodes, pods, events, node and pod status, review APIs), and EndpointSlices
 * for reading, as the agent's built-in service proxy needs them (kube-proxy's
 * system:node-proxier rules). Writes are
 * narrowed further by the NodeRestriction admission plugin. Other users: no opinion.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type { Authorizer, AuthzAttributes, Decision, RulesResult } from "./authorizer.ts";
import { NODE_RULES } from "./bootstrap/default_policy.ts";
import type { NodeGraph, ReferencedKind } from "./node_graph.ts";
import type { PolicyRule } from "./rbac_types.ts";
import { rulesAllow } from "./rule_matches.ts";

/** The group of node agents. */
export const NODES_GROUP = "system:nodes";
/** The prefix of node agent user names. */
export const NODE_USER_PREFIX = "system:node:";
/** The namespace holding node leases. */
export const NODE_LEASE_NAMESPACE = "kube-node-lease";

/** The node name of a node agent user, or undefined for other users ("" if unnamed). */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!(user.groups ?? []).includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

const noOpinion = (reason: string): Decision => ({ decision: "noOpinion", reason });
const ALLOW: Decision = { decision: "allow", reason: "" };

/** The Node authorizer. */
export class NodeAuthorizer implements Authorizer {
  readonly name = "Node";
  constructor(readonly graph: NodeGraph, readonly rules: readonly PolicyRule[] = NODE_RULES) {}

  /** Decides synchronously. */
  decide(a: AuthzAttributes): Decision {
    const node = nodeIdentity(a.user);
    if (node === undefined) return noOpinion("");
    if (node === "") return noOpinion("unknown node");
    if (a.isResourceRequest) {
      const gr = `${a.apiGroup}/${a.resource}`;
      switch (gr) {
        case "/secrets":
        case "/configmaps":
          return this.#readNamespaced(node, a.resource as ReferencedKind, a);
        case "/persistentvolumeclaims":
          if (a.subresource === "status") {
            if (a.verb !== "update" && a.verb !== "patch") {
              return noOpinion("can only update or patch status of this type");
            }
            return this.#related(node, "persistentvolumeclaims", a);
          }
          return this.#get(node, "persistentvolumeclaims", a);
        case "/persistentvolumes":
          if (a.verb !== "get") return noOpinion("can only get individual resources of this type");
          return noOpinion(`no relationship found between node '${node}' and this object`);
        case "/serviceaccounts":
          if (a.verb !== "create" || !a.name) {
            return noOpinion("can only create tokens for individual service accounts");
          }
          if (a.subresource !== "token") {
            return noOpinion("can only create token subresource of serviceaccount");
          }
          return this.#related(node, "serviceaccounts", a);
        case "coordination.k8s.io/leases":
          return this.#lease(node, a);
        case "discovery.k8s.io/endpointslices":
          // The agent's built-in service proxy reads them as kube-proxy (system:node-proxier).
          return ["get", "list", "watch"].includes(a.verb) ? ALLOW : noOpinion("");
      }
    }
    return rulesAllow(a, this.rules) ? ALLOW : noOpinion("");
  }

  authorize(a: AuthzAttributes): Promise<Decision> {
    return Promise.resolve(this.decide(a));
  }

  rulesFor(user: UserInfo): RulesResult {
    const node = nodeIdentity(user);
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: node !== undefined,
      errors: node !== undefined ? ["node authorizer does not support user rule resolution"] : [],
    };
  }

  #readNamespaced(node: string, kind: ReferencedKind, a: AuthzAttributes): Decision {
    if (a.verb !== "get" && a.verb !== "list" && a.verb !== "watch") {
      return noOpinion("can only read resources of this type");
    }
    if (a.subresource) return noOpinion("cannot read subresource");
    if (!a.namespace) return noOpinion("can only read namespaced object of this type");
    return this.#related(node, kind, a);
  }

  #get(node: string, kind: ReferencedKind, a: AuthzAttributes): Decision {
    if (a.verb !== "get") return noOpinion("can only get individual resources of this type");
    if (a.subresource) return noOpinion("cannot get subresource");
    return this.#related(node, kind, a);
  }

  #related(node: string, kind: ReferencedKind, a: AuthzAttributes): Decision {
    if (!a.name) return noOpinion("No Object name found");
    return this.graph.hasPath(node, kind, a.namespace, a.name)
      ? ALLOW
      : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  #lease(node: string, a: AuthzAttributes): Decision {
    if (!["get", "create", "update", "patch", "delete"].includes(a.verb)) {
      return noOpinion("can only get, create, update, patch, or delete a node lease");
    }
    if (a.namespace !== NODE_LEASE_NAMESPACE) {
      return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    }
    if (a.verb !== "create" && a.name !== node) {
      return noOpinion("can only access node lease with the same name as the requesting node");
    }
    return ALLOW;
  }
}
