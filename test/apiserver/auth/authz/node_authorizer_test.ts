import assert from "node:assert/strict";
import type { AuthzAttributes } from "../../../../apiserver/auth/authz/authorizer.ts";
import { NodeAuthorizer } from "../../../../apiserver/auth/authz/node_authorizer.ts";
import { NodeGraph, POD_PREFIX } from "../../../../apiserver/auth/authz/node_graph.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { resourceAttributes } from "./_resource_attributes.ts";

function pod(name: string, node: string, spec: Record<string, unknown>): KubeObject {
  return { metadata: { name, namespace: "default" }, spec: { nodeName: node, ...spec } };
}

function attrs(user: string, verb: string, resource: string, o: Partial<AuthzAttributes> = {}) {
  const node = { username: user, groups: ["system:nodes", "system:authenticated"] };
  return resourceAttributes(node, verb, resource, { namespace: "default", ...o });
}

Deno.test("NodeAuthorizer.decide() limits a node to what its pods use", async (t) => {
  const graph = new NodeGraph();
  const p1 = pod("p1", "n1", {
    serviceAccountName: "sa1",
    containers: [{
      name: "c",
      env: [{ name: "X", valueFrom: { secretKeyRef: { name: "env-secret", key: "k" } } }],
      envFrom: [{ configMapRef: { name: "cm1" } }],
    }],
    volumes: [{ name: "v", secret: { secretName: "vol-secret" } }, {
      name: "c",
      persistentVolumeClaim: { claimName: "claim1" },
    }],
  });
  const p2 = pod("p2", "n2", { volumes: [{ name: "v", secret: { secretName: "other" } }] });
  graph.apply([p1, p2].map((object) => ({
    type: "ADDED" as const,
    key: `${POD_PREFIX}default/${object.metadata.name}`,
    object,
    revision: 1,
  })));
  const node = new NodeAuthorizer(graph);
  const n1 = "system:node:n1";
  const cases: [string, AuthzAttributes, boolean][] = [
    ["volume secret of own pod", attrs(n1, "get", "secrets", { name: "vol-secret" }), true],
    ["env secret of own pod", attrs(n1, "get", "secrets", { name: "env-secret" }), true],
    ["watch with name", attrs(n1, "watch", "secrets", { name: "vol-secret" }), true],
    ["list without a name", attrs(n1, "list", "secrets"), false],
    ["secret of another node's pod", attrs(n1, "get", "secrets", { name: "other" }), false],
    ["write a secret", attrs(n1, "update", "secrets", { name: "vol-secret" }), false],
    ["config map", attrs(n1, "get", "configmaps", { name: "cm1" }), true],
    ["claim", attrs(n1, "get", "persistentvolumeclaims", { name: "claim1" }), true],
    [
      "token of own pod's account",
      attrs(n1, "create", "serviceaccounts/token", { name: "sa1" }),
      true,
    ],
    [
      "token of another account",
      attrs(n1, "create", "serviceaccounts/token", { name: "x" }),
      false,
    ],
    [
      "own lease",
      attrs(n1, "update", "leases", {
        apiGroup: "coordination.k8s.io",
        namespace: "kube-node-lease",
        name: "n1",
      }),
      true,
    ],
    [
      "other lease",
      attrs(n1, "update", "leases", {
        apiGroup: "coordination.k8s.io",
        namespace: "kube-node-lease",
        name: "n2",
      }),
      false,
    ],
    [
      "lease elsewhere",
      attrs(n1, "get", "leases", {
        apiGroup: "coordination.k8s.io",
        namespace: "default",
        name: "n1",
      }),
      false,
    ],
    ["read pods (static rule)", attrs(n1, "list", "pods"), true],
    [
      "node status (static rule)",
      attrs(n1, "patch", "nodes/status", { namespace: "", name: "n1" }),
      true,
    ],
    ["events (static rule)", attrs(n1, "create", "events"), true],
    [
      "watch EndpointSlices (the built-in service proxy)",
      attrs(n1, "watch", "endpointslices", { apiGroup: "discovery.k8s.io", namespace: "" }),
      true,
    ],
    [
      "no EndpointSlice writes",
      attrs(n1, "create", "endpointslices", { apiGroup: "discovery.k8s.io" }),
      false,
    ],
    ["no other writes", attrs(n1, "delete", "configmaps", { name: "cm1" }), false],
    ["not a node", { ...attrs(n1, "list", "pods"), user: { username: n1, groups: [] } }, false],
  ];
  for (const [name, a, want] of cases) {
    await t.step(name, () => {
      const d = node.decide(a);
      assert.equal(d.decision, want ? "allow" : "noOpinion", d.reason);
    });
  }
  await t.step("a pod moving away removes the path", () => {
    graph.apply([{ type: "DELETED", key: `${POD_PREFIX}default/p1`, object: p1, revision: 2 }]);
    const d = node.decide(attrs(n1, "get", "secrets", { name: "vol-secret" }));
    assert.equal(d.decision, "noOpinion");
    assert.equal(d.reason, "no relationship found between node 'n1' and this object");
  });
});
