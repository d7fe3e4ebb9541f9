/**
 * The shapes of the RBAC objects (`rbac.authorization.k8s.io/v1`) as the authorizer reads
 * them: rules, subjects and role references.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { LabelSelectorObject } from "../../../shared/selectors/label_selector.ts";

/** The RBAC API group. */
export const RBAC_GROUP = "rbac.authorization.k8s.io";

/** One rule of a Role or ClusterRole. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A subject of a binding. */
export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

/** The role a binding grants. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** A Role or ClusterRole. */
export interface RoleObject extends KubeObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] | null } | null;
}

/** A RoleBinding or ClusterRoleBinding. */
export interface BindingObject extends KubeObject {
  subjects?: Subject[] | null;
  roleRef: RoleRef;
}

/** Verbs that cannot be restricted by resourceNames. */
export const NAMELESS_VERBS = ["create", "deletecollection"];
