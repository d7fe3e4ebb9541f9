/**
 * The default cluster roles and cluster role bindings of Kubernetes 1.32 (its bootstrap
 * policy), labelled `kubernetes.io/bootstrapping=rbac-defaults` and annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "true"`. The roles of the built-in
 * controllers (`system:controller:*`) are not included: this server runs none of them.
 *
 * @module
 */
import type { BindingObject, PolicyRule, RoleObject, Subject } from "../rbac_types.ts";
import { RBAC_GROUP } from "../rbac_types.ts";

/** The label every default object carries. */
export const BOOTSTRAP_LABEL = { key: "kubernetes.io/bootstrapping", value: "rbac-defaults" };
/** The annotation that turns reconciliation of a default object off when "false". */
export const AUTOUPDATE_ANNOTATION = "rbac.authorization.kubernetes.io/autoupdate";
/** The aggregation labels of the default roles. */
export const AGGREGATE_TO = {
  admin: "rbac.authorization.k8s.io/aggregate-to-admin",
  edit: "rbac.authorization.k8s.io/aggregate-to-edit",
  view: "rbac.authorization.k8s.io/aggregate-to-view",
} as const;

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const READ_WRITE = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** A resource rule. */
function r(
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  names?: string[],
): PolicyRule {
  const rule: PolicyRule = { verbs, apiGroups, resources };
  if (names) rule.resourceNames = names;
  return rule;
}

/** A non-resource rule. */
function u(verbs: string[], urls: string[]): PolicyRule {
  return { verbs, nonResourceURLs: urls };
}

const EVENTS_RULE = r(["create", "patch", "update"], ["", "events.k8s.io"], ["events"]);

/** The static rules of node agents (ClusterRole system:node), used by the Node authorizer. */
export const NODE_RULES: readonly PolicyRule[] = [
  r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
  r(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews", "subjectaccessreviews"]),
  r(READ, [""], ["services"]),
  r(["create", "get", "list", "watch"], [""], ["nodes"]),
  r(["patch", "update"], [""], ["nodes/status"]),
  r(["patch", "update"], [""], ["nodes"]),
  r(["create", "patch", "update"], [""], ["events"]),
  r(READ, [""], ["pods"]),
  r(["create", "delete"], [""], ["pods"]),
  r(["patch", "update"], [""], ["pods/status"]),
  r(["create"], [""], ["pods/eviction"]),
  r(READ, [""], ["configmaps", "secrets"]),
  r(["get"], [""], ["persistentvolumeclaims", "persistentvolumes"]),
  r(["get"], [""], ["endpoints"]),
  r(["create", "get", "list", "watch"], ["certificates.k8s.io"], ["certificatesigningrequests"]),
  r(["create", "delete", "get", "patch", "update"], ["coordination.k8s.io"], ["leases"]),
  r(["get"], ["storage.k8s.io"], ["volumeattachments"]),
  r(["create"], [""], ["serviceaccounts/token"]),
  r(["get", "patch", "update"], [""], ["persistentvolumeclaims/status"]),
  r(READ, ["storage.k8s.io"], ["csidrivers"]),
  r(["create", "delete", "get", "patch", "update"], ["storage.k8s.io"], ["csinodes"]),
  r(READ, ["node.k8s.io"], ["runtimeclasses"]),
];

interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  aggregateFrom?: string;
}

const ROLE_SPECS: RoleSpec[] = [
  { name: "cluster-admin", rules: [r(["*"], ["*"], ["*"]), u(["*"], ["*"])] },
  { name: "admin", aggregateFrom: AGGREGATE_TO.admin },
  { name: "edit", aggregateFrom: AGGREGATE_TO.edit, labels: { [AGGREGATE_TO.admin]: "true" } },
  { name: "view", aggregateFrom: AGGREGATE_TO.view, labels: { [AGGREGATE_TO.edit]: "true" } },
  {
    name: "system:aggregate-to-admin",
    labels: { [AGGREGATE_TO.admin]: "true" },
    rules: [
      r(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
      r(READ_WRITE, [RBAC_GROUP], ["rolebindings", "roles"]),
    ],
  },
  {
    name: "system:aggregate-to-edit",
    labels: { [AGGREGATE_TO.edit]: "true" },
    rules: [
      r(READ, [""], [
        "pods/attach",
        "pods/exec",
        "pods/portforward",
        "pods/proxy",
        "secrets",
        "services/proxy",
      ]),
      r(["impersonate"], [""], ["serviceaccounts"]),
      r(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
      r(["create"], [""], ["pods/eviction"]),
      r(WRITE, [""], [
        "configmaps",
        "events",
        "persistentvolumeclaims",
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "secrets",
        "serviceaccounts",
        "services",
        "services/proxy",
      ]),
      r(["create"], [""], ["serviceaccounts/token"]),
      r(WRITE, ["apps"], [
        "daemonsets",
        "deployments",
        "deployments/rollback",
        "deployments/scale",
        "replicasets",
        "replicasets/scale",
        "statefulsets",
        "statefulsets/scale",
      ]),
      r(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
      r(WRITE, ["batch"], ["cronjobs", "jobs"]),
      r(WRITE, ["extensions"], [
        "daemonsets",
        "deployments",
        "deployments/rollback",
        "deployments/scale",
        "ingresses",
        "networkpolicies",
        "replicasets",
        "replicasets/scale",
        "replicationcontrollers/scale",
      ]),
      r(WRITE, ["policy"], ["poddisruptionbudgets"]),
      r(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
      r(READ_WRITE, ["coordination.k8s.io"], ["leases"]),
    ],
  },
  {
    name: "system:aggregate-to-view",
    labels: { [AGGREGATE_TO.view]: "true" },
    rules: [
      r(READ, [""], [
        "configmaps",
        "endpoints",
        "persistentvolumeclaims",
        "persistentvolumeclaims/status",
        "pods",
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "serviceaccounts",
        "services",
        "services/status",
      ]),
      r(READ, [""], [
        "bindings",
        "events",
        "limitranges",
        "namespaces/status",
        "pods/log",
        "pods/status",
        "replicationcontrollers/status",
        "resourcequotas",
        "resourcequotas/status",
      ]),
      r(READ, [""], ["namespaces"]),
      r(READ, ["discovery.k8s.io"], ["endpointslices"]),
      r(READ, ["apps"], [
        "controllerrevisions",
        "daemonsets",
        "daemonsets/status",
        "deployments",
        "deployments/scale",
        "deployments/status",
        "replicasets",
        "replicasets/scale",
        "replicasets/status",
        "statefulsets",
        "statefulsets/scale",
        "statefulsets/status",
      ]),
      r(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
      r(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
      r(READ, ["extensions"], [
        "daemonsets",
        "daemonsets/status",
        "deployments",
        "deployments/scale",
        "deployments/status",
        "ingresses",
        "ingresses/status",
        "networkpolicies",
        "replicasets",
        "replicasets/scale",
        "replicasets/status",
        "replicationcontrollers/scale",
      ]),
      r(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
      r(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
    ],
  },
  {
    name: "system:auth-delegator",
    rules: [
      r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
    ],
  },
  {
    name: "system:basic-user",
    rules: [
      r(["create"], ["authorization.k8s.io"], [
        "selfsubjectaccessreviews",
        "selfsubjectrulesreviews",
      ]),
      r(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ],
  },
  {
    name: "system:discovery",
    rules: [
      u(["get"], [
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        "/healthz",
        "/livez",
        "/openapi",
        "/openapi/*",
        "/readyz",
        "/version",
        "/version/",
      ]),
    ],
  },
  {
    name: "system:public-info-viewer",
    rules: [u(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])],
  },
  {
    name: "system:monitoring",
    rules: [
      u(["get"], [
        "/healthz",
        "/healthz/*",
        "/livez",
        "/livez/*",
        "/metrics",
        "/metrics/slis",
        "/readyz",
        "/readyz/*",
      ]),
    ],
  },
  { name: "system:node", rules: [...NODE_RULES] },
  {
    name: "system:node-bootstrapper",
    rules: [
      r(["create", "get", "list", "watch"], ["certificates.k8s.io"], [
        "certificatesigningrequests",
      ]),
    ],
  },
  {
    name: "system:node-proxier",
    rules: [
      r(["list", "watch"], [""], ["endpoints", "services"]),
      r(READ, [""], ["nodes"]),
      EVENTS_RULE,
      r(["list", "watch"], ["discovery.k8s.io"], ["endpointslices"]),
    ],
  },
  {
    name: "system:node-problem-detector",
    rules: [r(["get"], [""], ["nodes"]), r(["patch"], [""], ["nodes/status"]), EVENTS_RULE],
  },
  { name: "system:kube-aggregator", rules: [r(READ, [""], ["endpoints", "services"])] },
  { name: "system:kube-dns", rules: [r(["list", "watch"], [""], ["endpoints", "services"])] },
  {
    name: "system:kube-controller-manager",
    rules: [
      EVENTS_RULE,
      r(["create"], ["coordination.k8s.io"], ["leases"]),
      r(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-controller-manager"]),
      r(["create"], [""], ["secrets", "serviceaccounts"]),
      r(["delete"], [""], ["secrets"]),
      r(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
      r(["update"], [""], ["secrets", "serviceaccounts"]),
      r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      r(["list", "watch"], ["*"], ["*"]),
      r(["create"], [""], ["serviceaccounts/token"]),
    ],
  },
  {
    name: "system:kube-scheduler",
    rules: [
      EVENTS_RULE,
      r(["create"], ["coordination.k8s.io"], ["leases"]),
      r(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-scheduler"]),
      r(READ, [""], ["nodes"]),
      r(["delete", "get", "list", "watch"], [""], ["pods"]),
      r(["create"], [""], ["bindings", "pods/binding"]),
      r(["patch", "update"], [""], ["pods/status"]),
      r(READ, [""], ["replicationcontrollers", "services"]),
      r(READ, ["apps", "extensions"], ["replicasets"]),
      r(READ, ["apps"], ["statefulsets"]),
      r(READ, ["policy"], ["poddisruptionbudgets"]),
      r(READ, [""], ["persistentvolumeclaims", "persistentvolumes"]),
      r(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      r(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      r(READ, ["storage.k8s.io"], ["csinodes"]),
      r(READ, [""], ["namespaces"]),
      r(READ, ["storage.k8s.io"], ["csidrivers"]),
      r(READ, ["storage.k8s.io"], ["csistoragecapacities"]),
    ],
  },
  {
    name: "system:volume-scheduler",
    rules: [
      r(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumes"]),
      r(READ, ["storage.k8s.io"], ["storageclasses"]),
      r(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumeclaims"]),
    ],
  },
  {
    name: "system:kubelet-api-admin",
    rules: [
      r(READ, [""], ["nodes"]),
      r(["proxy"], [""], ["nodes"]),
      r(["*"], [""], ["nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats"]),
    ],
  },
  {
    name: "system:service-account-issuer-discovery",
    rules: [u(["get"], ["/.well-known/openid-configuration", "/openid/v1/jwks"])],
  },
  {
    name: "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    rules: [r(["create"], ["certificates.k8s.io"], ["certificatesigningrequests/nodeclient"])],
  },
  {
    name: "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
    rules: [r(["create"], ["certificates.k8s.io"], ["certificatesigningrequests/selfnodeclient"])],
  },
  {
    name: "system:certificates.k8s.io:legacy-unknown-approver",
    rules: [r(["approve"], ["certificates.k8s.io"], ["signers"], ["kubernetes.io/legacy-unknown"])],
  },
  {
    name: "system:certificates.k8s.io:kubelet-serving-approver",
    rules: [
      r(["approve"], ["certificates.k8s.io"], ["signers"], ["kubernetes.io/kubelet-serving"]),
    ],
  },
  {
    name: "system:certificates.k8s.io:kube-apiserver-client-approver",
    rules: [
      r(["approve"], ["certificates.k8s.io"], ["signers"], ["kubernetes.io/kube-apiserver-client"]),
    ],
  },
  {
    name: "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
    rules: [
      r(["approve"], ["certificates.k8s.io"], ["signers"], [
        "kubernetes.io/kube-apiserver-client-kubelet",
      ]),
    ],
  },
  // Not kube's: metrics-server's manifest, for the metrics.k8s.io API this server serves.
  {
    name: "system:aggregated-metrics-reader",
    labels: {
      [AGGREGATE_TO.admin]: "true",
      [AGGREGATE_TO.edit]: "true",
      [AGGREGATE_TO.view]: "true",
    },
    rules: [r(READ, ["metrics.k8s.io"], ["nodes", "pods"])],
  },
];

const group = (name: string): Subject => ({ kind: "Group", apiGroup: RBAC_GROUP, name });
const user = (name: string): Subject => ({ kind: "User", apiGroup: RBAC_GROUP, name });

const BINDING_SPECS: { name: string; role?: string; subjects: Subject[] }[] = [
  { name: "cluster-admin", subjects: [group("system:masters")] },
  { name: "system:basic-user", subjects: [group("system:authenticated")] },
  { name: "system:discovery", subjects: [group("system:authenticated")] },
  {
    name: "system:public-info-viewer",
    subjects: [group("system:authenticated"), group("system:unauthenticated")],
  },
  { name: "system:monitoring", subjects: [group("system:monitoring")] },
  { name: "system:node", subjects: [] },
  { name: "system:node-proxier", subjects: [user("system:kube-proxy")] },
  { name: "system:kube-controller-manager", subjects: [user("system:kube-controller-manager")] },
  { name: "system:kube-scheduler", subjects: [user("system:kube-scheduler")] },
  { name: "system:volume-scheduler", subjects: [user("system:kube-scheduler")] },
  {
    name: "system:kube-dns",
    subjects: [{ kind: "ServiceAccount", name: "kube-dns", namespace: "kube-system" }],
  },
  {
    name: "system:service-account-issuer-discovery",
    subjects: [group("system:serviceaccounts")],
  },
];

function meta(name: string, labels?: Record<string, string>) {
  return {
    name,
    labels: { [BOOTSTRAP_LABEL.key]: BOOTSTRAP_LABEL.value, ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: "true" },
  };
}

/** The default ClusterRoles, fresh copies. */
export function defaultClusterRoles(): RoleObject[] {
  return ROLE_SPECS.map((s) => {
    const role: RoleObject = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: "ClusterRole",
      metadata: meta(s.name, s.labels),
    };
    if (s.aggregateFrom) {
      role.aggregationRule = {
        clusterRoleSelectors: [{ matchLabels: { [s.aggregateFrom]: "true" } }],
      };
      role.rules = [];
    } else role.rules = structuredClone(s.rules ?? []);
    return role;
  });
}

/** The default ClusterRoleBindings, fresh copies. */
export function defaultClusterRoleBindings(): BindingObject[] {
  return BINDING_SPECS.map((s) => {
    const b: BindingObject = {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: "ClusterRoleBinding",
      metadata: meta(s.name),
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: s.role ?? s.name },
    };
    if (s.subjects.length > 0) b.subjects = structuredClone(s.subjects);
    return b;
  });
}
