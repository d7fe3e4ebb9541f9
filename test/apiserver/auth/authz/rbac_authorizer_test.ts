import assert from "node:assert/strict";
import type { AuthzAttributes } from "../../../../apiserver/auth/authz/authorizer.ts";
import { RbacAuthorizer } from "../../../../apiserver/auth/authz/rbac_authorizer.ts";
import { RBAC_PREFIXES, RbacIndex } from "../../../../apiserver/auth/authz/rbac_index.ts";
import type { PolicyRule } from "../../../../apiserver/auth/authz/rbac_types.ts";
import type { ResourceEvent } from "../../../../apiserver/auth/authz/resource_feed.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { resourceAttributes } from "./_resource_attributes.ts";

const G = "rbac.authorization.k8s.io";

function added(prefix: string, obj: KubeObject): ResourceEvent {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}/` : "";
  return { type: "ADDED", key: `${prefix}${ns}${obj.metadata.name}`, object: obj, revision: 1 };
}

function clusterRole(name: string, rules: PolicyRule[]): ResourceEvent {
  return added(RBAC_PREFIXES.clusterroles, { metadata: { name }, rules } as KubeObject);
}

function role(ns: string, name: string, rules: PolicyRule[]): ResourceEvent {
  return added(RBAC_PREFIXES.roles, { metadata: { name, namespace: ns }, rules } as KubeObject);
}

function binding(
  ns: string,
  name: string,
  roleKind: string,
  roleName: string,
  subjects: Record<string, string>[],
): ResourceEvent {
  const obj = {
    metadata: ns ? { name, namespace: ns } : { name },
    roleRef: { apiGroup: G, kind: roleKind, name: roleName },
    subjects,
  } as unknown as KubeObject;
  return added(ns ? RBAC_PREFIXES.rolebindings : RBAC_PREFIXES.clusterrolebindings, obj);
}

const user = (username: string, ...groups: string[]) => ({ username, groups });

const req = resourceAttributes;

function nonResource(u: { username: string; groups: string[] }, verb: string, path: string) {
  return req(u, verb, "", { isResourceRequest: false, path, apiVersion: "" });
}

function fixture(): RbacAuthorizer {
  const index = new RbacIndex();
  index.apply([
    clusterRole("all", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]),
    clusterRole("pod-reader", [{
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["pods"],
    }]),
    clusterRole("logs", [{ verbs: ["get"], apiGroups: [""], resources: ["pods/log"] }]),
    clusterRole("any-status", [{ verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] }]),
    clusterRole("one-cm", [{
      verbs: ["get", "list", "watch", "update", "create", "deletecollection"],
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["app-config"],
    }]),
    clusterRole("health", [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/logs/*"] }]),
    clusterRole("apps-deploy", [{
      verbs: ["create"],
      apiGroups: ["apps"],
      resources: ["deployments"],
    }]),
    role("team", "secret-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }]),
    binding("", "admins", "ClusterRole", "all", [{ kind: "Group", name: "admins", apiGroup: G }]),
    binding("", "readers", "ClusterRole", "pod-reader", [{
      kind: "User",
      name: "reader",
      apiGroup: G,
    }]),
    binding("", "logs", "ClusterRole", "logs", [{ kind: "User", name: "logger", apiGroup: G }]),
    binding("", "status", "ClusterRole", "any-status", [{ kind: "User", name: "st", apiGroup: G }]),
    binding("", "health", "ClusterRole", "health", [{ kind: "Group", name: "mon", apiGroup: G }]),
    binding("team", "cm", "ClusterRole", "one-cm", [{ kind: "User", name: "cm", apiGroup: G }]),
    binding("team", "team-pods", "ClusterRole", "pod-reader", [{
      kind: "User",
      name: "jane",
      apiGroup: G,
    }]),
    binding("team", "sa", "Role", "secret-reader", [{ kind: "ServiceAccount", name: "robot" }]),
    binding("team", "deploy", "ClusterRole", "apps-deploy", [{
      kind: "User",
      name: "jane",
      apiGroup: G,
    }]),
    binding("team", "health-ns", "ClusterRole", "health", [{
      kind: "User",
      name: "jane",
      apiGroup: G,
    }]),
    binding("team", "dangling", "Role", "missing", [{ kind: "User", name: "ghost", apiGroup: G }]),
  ]);
  return new RbacAuthorizer(index);
}

Deno.test("RbacAuthorizer.decide() evaluates rules as Kubernetes' RBAC does", async (t) => {
  const rbac = fixture();
  const robot = user("system:serviceaccount:team:robot", "system:serviceaccounts");
  const cases: [string, AuthzAttributes, boolean][] = [
    ["wildcard group grants anything", req(user("x", "admins"), "delete", "nodes"), true],
    [
      "wildcard covers subresources",
      req(user("x", "admins"), "get", "pods/log", { namespace: "a" }),
      true,
    ],
    [
      "wildcard covers custom verbs",
      req(user("x", "admins"), "escalate", "roles", { apiGroup: G }),
      true,
    ],
    [
      "cluster binding grants in every namespace",
      req(user("reader"), "list", "pods", { namespace: "b" }),
      true,
    ],
    ["cluster binding grants cluster-wide list", req(user("reader"), "list", "pods"), true],
    ["verb outside the rule", req(user("reader"), "delete", "pods", { namespace: "b" }), false],
    ["other group", req(user("reader"), "list", "pods", { apiGroup: "apps" }), false],
    [
      "resource rule does not grant its subresource",
      req(user("reader"), "get", "pods/log", { namespace: "b", name: "p" }),
      false,
    ],
    [
      "subresource rule",
      req(user("logger"), "get", "pods/log", { namespace: "b", name: "p" }),
      true,
    ],
    [
      "subresource rule does not grant the resource",
      req(user("logger"), "get", "pods", { namespace: "b", name: "p" }),
      false,
    ],
    [
      "*/status matches every status",
      req(user("st"), "update", "nodes/status", { name: "n" }),
      true,
    ],
    [
      "*/status does not match the resource",
      req(user("st"), "update", "nodes", { name: "n" }),
      false,
    ],
    [
      "resourceNames: named get",
      req(user("cm"), "get", "configmaps", { namespace: "team", name: "app-config" }),
      true,
    ],
    [
      "resourceNames: other name",
      req(user("cm"), "get", "configmaps", { namespace: "team", name: "other" }),
      false,
    ],
    [
      "resourceNames: list without field selector",
      req(user("cm"), "list", "configmaps", { namespace: "team" }),
      false,
    ],
    [
      "resourceNames: list with metadata.name selector",
      req(user("cm"), "list", "configmaps", { namespace: "team", name: "app-config" }),
      true,
    ],
    [
      "resourceNames: watch with metadata.name selector",
      req(user("cm"), "watch", "configmaps", { namespace: "team", name: "app-config" }),
      true,
    ],
    [
      "resourceNames cannot restrict create",
      req(user("cm"), "create", "configmaps", { namespace: "team" }),
      false,
    ],
    [
      "resourceNames cannot restrict deletecollection",
      req(user("cm"), "deletecollection", "configmaps", { namespace: "team" }),
      false,
    ],
    [
      "role binding grants only in its namespace",
      req(user("cm"), "get", "configmaps", { namespace: "other", name: "app-config" }),
      false,
    ],
    [
      "role binding to a cluster role, in namespace",
      req(user("jane"), "list", "pods", { namespace: "team" }),
      true,
    ],
    [
      "role binding to a cluster role, other namespace",
      req(user("jane"), "list", "pods", { namespace: "x" }),
      false,
    ],
    ["role binding does not grant cluster scope", req(user("jane"), "list", "pods"), false],
    [
      "apps group rule",
      req(user("jane"), "create", "deployments", { namespace: "team", apiGroup: "apps" }),
      true,
    ],
    [
      "service account subject",
      req(robot, "get", "secrets", { namespace: "team", name: "s" }),
      true,
    ],
    [
      "service account of another namespace",
      req(user("system:serviceaccount:other:robot"), "get", "secrets", {
        namespace: "team",
        name: "s",
      }),
      false,
    ],
    ["nonResourceURL exact", nonResource(user("m", "mon"), "get", "/healthz"), true],
    ["nonResourceURL star suffix", nonResource(user("m", "mon"), "get", "/logs/kube/x.log"), true],
    ["nonResourceURL star needs the prefix", nonResource(user("m", "mon"), "get", "/logsx"), false],
    ["nonResourceURL other path", nonResource(user("m", "mon"), "get", "/metrics"), false],
    ["nonResourceURL wrong verb", nonResource(user("m", "mon"), "post", "/healthz"), false],
    [
      "nonResourceURLs only through cluster bindings",
      nonResource(user("jane"), "get", "/healthz"),
      false,
    ],
    [
      "no binding at all",
      req(user("nobody"), "get", "pods", { namespace: "team", name: "p" }),
      false,
    ],
  ];
  for (const [name, attrs, allowed] of cases) {
    await t.step(name, () => {
      const d = rbac.decide(attrs);
      assert.equal(d.decision, allowed ? "allow" : "noOpinion", d.reason);
    });
  }
});

Deno.test("RbacAuthorizer.decide() reports a missing role and follows deletions", () => {
  const rbac = fixture();
  const d = rbac.decide(req(user("ghost"), "get", "pods", { namespace: "team", name: "p" }));
  assert.equal(d.decision, "noOpinion");
  assert.match(d.reason, /role\.rbac\.authorization\.k8s\.io "missing" not found/);
  assert.equal(rbac.decide(req(user("reader"), "list", "pods")).decision, "allow");
  rbac.index.apply([{
    ...binding("", "readers", "ClusterRole", "pod-reader", []),
    type: "DELETED",
  }]);
  assert.equal(rbac.decide(req(user("reader"), "list", "pods")).decision, "noOpinion");
});

Deno.test("RbacAuthorizer.rulesFor() lists resource and non-resource rules of a namespace", () => {
  const rbac = fixture();
  const r = rbac.rulesFor(user("jane"), "team");
  assert.deepEqual(r.resourceRules.map((x) => x.resources), [["pods"], ["deployments"]]);
  assert.deepEqual(r.nonResourceRules, [{
    verbs: ["get"],
    nonResourceURLs: ["/healthz", "/logs/*"],
  }]);
  assert.equal(r.incomplete, false);
});
