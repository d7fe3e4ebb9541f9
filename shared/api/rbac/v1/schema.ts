/**
 * The schema declaration of rbac.authorization.k8s.io/v1 (Role, ClusterRole, RoleBinding,
 * ClusterRoleBinding): required fields and the map types of Kubernetes' OpenAPI. Its lists carry
 * no list type or patch strategy there, so they are atomic: a strategic merge patch replaces
 * `rules` and `subjects` whole, and server-side apply owns them as one value.
 *
 * @module
 */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** rbac.authorization.k8s.io/v1. */
export const rbacV1Schema: GroupSchema = {
  package: "rbac.v1",
  group: "rbac.authorization.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.rbac.v1",
  kinds: [
    "Role",
    "RoleList",
    "ClusterRole",
    "ClusterRoleList",
    "RoleBinding",
    "RoleBindingList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
  ],
  types: {
    Role: {
      description: "A namespaced set of permissions (policy rules), granted by a RoleBinding.",
      fields: { rules: { description: "The permissions of this role." } },
    },
    RoleList: { required: ["items"] },
    ClusterRole: {
      description:
        "A cluster-wide set of permissions (policy rules), granted by a RoleBinding in one " +
        "namespace or by a ClusterRoleBinding everywhere.",
      fields: {
        rules: { description: "The permissions of this cluster role." },
        aggregationRule: {
          description:
            "When set, the rules are the union of the rules of the cluster roles its selectors " +
            "match, kept up to date by a controller (direct edits of rules are overwritten).",
        },
      },
    },
    ClusterRoleList: { required: ["items"] },
    AggregationRule: {
      description: "Selects the cluster roles whose rules are aggregated into a cluster role.",
      fields: {
        clusterRoleSelectors: {
          description: "Label selectors; a cluster role matching any of them contributes rules.",
        },
      },
    },
    PolicyRule: {
      description:
        "One permission: verbs allowed on resources (of API groups, optionally by name) or on " +
        "non-resource URLs, never both.",
      required: ["verbs"],
      fields: {
        verbs: { description: "The allowed verbs, e.g. get, list, watch; '*' means all." },
        apiGroups: { description: 'API groups of the resources; "" is the core group.' },
        resources: {
          description: "Resources (and resource/subresource) the rule covers; '*' means all.",
        },
        resourceNames: {
          description: "Names of the objects the rule is limited to; empty means any name.",
        },
        nonResourceURLs: {
          description:
            "URL paths such as /healthz the rule covers ('*' only as a final segment); only " +
            "meaningful in cluster roles bound by a ClusterRoleBinding.",
        },
      },
    },
    RoleBinding: {
      description:
        "Grants the permissions of a Role (of the same namespace) or of a ClusterRole to " +
        "subjects, within the binding's namespace.",
      required: ["roleRef"],
      fields: {
        subjects: { description: "Who is granted the role." },
        roleRef: {
          description: "The Role or ClusterRole granted; it cannot be changed after creation.",
        },
      },
    },
    RoleBindingList: { required: ["items"] },
    ClusterRoleBinding: {
      description: "Grants the permissions of a ClusterRole to subjects in every namespace.",
      required: ["roleRef"],
      fields: {
        subjects: { description: "Who is granted the cluster role." },
        roleRef: {
          description: "The ClusterRole granted; it cannot be changed after creation.",
        },
      },
    },
    ClusterRoleBindingList: { required: ["items"] },
    RoleRef: {
      description: "Names the role a binding grants.",
      required: ["apiGroup", "kind", "name"],
      structType: "atomic",
      fields: {
        apiGroup: { description: "API group of the role: rbac.authorization.k8s.io." },
        kind: { description: "Role or ClusterRole." },
        name: { description: "Name of the role." },
      },
    },
    Subject: {
      description: "A user, group or service account a binding grants a role to.",
      required: ["kind", "name"],
      structType: "atomic",
      fields: {
        kind: { description: "User, Group or ServiceAccount." },
        apiGroup: {
          description: 'API group of the subject: "" for ServiceAccount (the default), ' +
            "rbac.authorization.k8s.io for User and Group.",
        },
        name: { description: "Name of the user, group or service account." },
        namespace: {
          description: "Namespace of a ServiceAccount subject; must be empty for users and groups.",
        },
      },
    },
  },
};
