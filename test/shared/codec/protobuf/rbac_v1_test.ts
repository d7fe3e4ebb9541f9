import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../../../shared/codec/protobuf/mod.ts";
import { rbacV1Messages } from "../../../../shared/codec/protobuf/schema/rbac_v1.ts";
import { groupTableChecks } from "./_group_table_checks.ts";

const GV = "rbac.authorization.k8s.io/v1";

const roleRef = (kind: string, name: string) => ({
  apiGroup: "rbac.authorization.k8s.io",
  kind,
  name,
});

groupTableChecks({
  messagesName: "rbacV1Messages",
  messages: rbacV1Messages,
  gv: GV,
  // [message, json, number, keepZero], read from rbac/v1 generated.proto and types.go (v0.32).
  fields: [
    ["rbac.v1.ClusterRole", "aggregationRule", 3, false],
    ["rbac.v1.PolicyRule", "nonResourceURLs", 5, false],
    ["rbac.v1.PolicyRule", "resourceNames", 4, false],
    ["rbac.v1.Subject", "apiGroup", 2, false],
    ["rbac.v1.Subject", "name", 3, true],
    ["rbac.v1.Subject", "namespace", 4, false],
    ["rbac.v1.RoleRef", "apiGroup", 1, true],
    ["rbac.v1.RoleRef", "kind", 2, true],
    ["rbac.v1.RoleBinding", "roleRef", 3, false],
    ["rbac.v1.AggregationRule", "clusterRoleSelectors", 1, false],
  ],
  kinds: [
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Status",
    "DeleteOptions",
  ],
  notRegistered: [[GV, "PolicyRule"], ["rbac.authorization.k8s.io/v1beta1", "Role"]],
  fixture: "rbac_v1.json",
  // Expected: kubectl's own JSON of the same object (`--dry-run=client -o json`).
  kubectl: [
    ["create rolebinding x --clusterrole=view --user=jane -n default", "create_rolebinding.bin", {
      apiVersion: GV,
      kind: "RoleBinding",
      metadata: { name: "x", namespace: "default", creationTimestamp: null },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }],
      roleRef: roleRef("ClusterRole", "view"),
    }],
    ["create clusterrole r --verb=get --resource=pods", "create_clusterrole.bin", {
      apiVersion: GV,
      kind: "ClusterRole",
      metadata: { name: "r", creationTimestamp: null },
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
    }],
    [
      "create clusterrolebinding crb --clusterrole=view --group=devs --serviceaccount=default:sa",
      "create_clusterrolebinding.bin",
      {
        apiVersion: GV,
        kind: "ClusterRoleBinding",
        metadata: { name: "crb", creationTimestamp: null },
        subjects: [
          { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "devs" },
          { kind: "ServiceAccount", name: "sa", namespace: "default" },
        ],
        roleRef: roleRef("ClusterRole", "view"),
      },
    ],
    [
      "create role ro --verb=get,list --resource=pods,configmaps --resource-name=a",
      "create_role.bin",
      {
        apiVersion: GV,
        kind: "Role",
        metadata: { name: "ro", creationTimestamp: null },
        rules: [{
          verbs: ["get", "list"],
          apiGroups: [""],
          resources: ["pods", "configmaps"],
          resourceNames: ["a"],
        }],
      },
    ],
    [
      // Go's JSON also has `"rules": null` here (a nil slice without omitempty).
      "create clusterrole agg --aggregation-rule=team=a",
      "create_clusterrole_aggregation.bin",
      {
        apiVersion: GV,
        kind: "ClusterRole",
        metadata: { name: "agg", creationTimestamp: null },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: "a" } }] },
      },
    ],
  ],
  kubectlLabel: "rbac",
});

Deno.test("decodeObject() drops empty rbac lists, which Protobuf cannot tell from absent ones", () => {
  // Go decodes them as nil slices too (and renders `"rules": null`, which this codec omits).
  const obj = { apiVersion: GV, kind: "ClusterRole", metadata: { name: "x" }, rules: [] };
  assert.deepStrictEqual(decodeObject(encodeObject(obj)), {
    apiVersion: GV,
    kind: "ClusterRole",
    metadata: { name: "x" },
  });
});
