/**
 * Message descriptors of rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1), Kubernetes 1.32.
 *
 * Field numbers, wire types and JSON names are the facts of the upstream API types; the table format
 * is ours (see {@link MessageTable}).
 *
 * @module
 */
import type { MessageTable } from "../message_descriptor.ts";

/** Messages of rbac.authorization.k8s.io/v1 (k8s.io/api/rbac/v1). */
export const rbacV1Messages: MessageTable = {
  "rbac.v1.AggregationRule": [
    [1, "clusterRoleSelectors", "[]meta.v1.LabelSelector"],
  ],
  "rbac.v1.ClusterRole": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "rules", "[]rbac.v1.PolicyRule"],
    [3, "aggregationRule", "rbac.v1.AggregationRule"],
  ],
  "rbac.v1.ClusterRoleBinding": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "subjects", "[]rbac.v1.Subject"],
    [3, "roleRef", "rbac.v1.RoleRef"],
  ],
  "rbac.v1.ClusterRoleBindingList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]rbac.v1.ClusterRoleBinding"],
  ],
  "rbac.v1.ClusterRoleList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]rbac.v1.ClusterRole"],
  ],
  "rbac.v1.PolicyRule": [
    [1, "verbs", "[]string"],
    [2, "apiGroups", "[]string"],
    [3, "resources", "[]string"],
    [4, "resourceNames", "[]string"],
    [5, "nonResourceURLs", "[]string"],
  ],
  "rbac.v1.Role": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "rules", "[]rbac.v1.PolicyRule"],
  ],
  "rbac.v1.RoleBinding": [
    [1, "metadata", "meta.v1.ObjectMeta"],
    [2, "subjects", "[]rbac.v1.Subject"],
    [3, "roleRef", "rbac.v1.RoleRef"],
  ],
  "rbac.v1.RoleBindingList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]rbac.v1.RoleBinding"],
  ],
  "rbac.v1.RoleList": [
    [1, "metadata", "meta.v1.ListMeta"],
    [2, "items", "[]rbac.v1.Role"],
  ],
  "rbac.v1.RoleRef": [
    [1, "apiGroup", "string", 1],
    [2, "kind", "string", 1],
    [3, "name", "string", 1],
  ],
  "rbac.v1.Subject": [
    [1, "kind", "string", 1],
    [2, "apiGroup", "string"],
    [3, "name", "string", 1],
    [4, "namespace", "string"],
  ],
};
