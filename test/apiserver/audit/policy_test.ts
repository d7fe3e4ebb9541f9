import assert from "node:assert/strict";
import {
  type AuditAttributes,
  evaluatePolicy,
  parseAuditPolicy,
} from "../../../apiserver/audit/policy.ts";

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: ["system:kube-proxy"]
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "configmaps"]
  - level: Request
    verbs: ["create"]
    namespaces: ["audited"]
    omitStages: [ResponseStarted]
  - level: RequestResponse
    resources:
      - group: "apps"
        resources: ["deployments/scale", "*/status"]
  - level: Request
    resources:
      - group: ""
        resources: ["pods/*"]
        resourceNames: ["web"]
  - level: Metadata
    userGroups: ["auditors"]
    omitManagedFields: true
  - level: RequestResponse
    resources:
      - group: "batch"
`;

function attrs(over: Partial<AuditAttributes>): AuditAttributes {
  return {
    user: { username: "alice", groups: ["system:authenticated"] },
    verb: "get",
    isResourceRequest: true,
    path: "/api/v1/namespaces/default/pods",
    apiGroup: "",
    namespace: "default",
    resource: "pods",
    subresource: "",
    name: "",
    ...over,
  };
}

const CASES: [string, Partial<AuditAttributes>, string][] = [
  ["a user rule", { user: { username: "system:kube-proxy", groups: [] } }, "None"],
  ["a non-resource prefix", { isResourceRequest: false, path: "/healthz/ping" }, "None"],
  ["a non-resource exact path", { isResourceRequest: false, path: "/version" }, "None"],
  [
    "another non-resource path matches nothing",
    { isResourceRequest: false, path: "/metrics" },
    "None",
  ],
  ["secrets by resource", { resource: "secrets", verb: "list" }, "Metadata"],
  ["configmaps by resource", { resource: "configmaps", name: "x" }, "Metadata"],
  ["a verb and namespace rule", { verb: "create", namespace: "audited" }, "Request"],
  ["the same verb elsewhere", { verb: "create", namespace: "other" }, "None"],
  ["resource/subresource", {
    apiGroup: "apps",
    resource: "deployments",
    subresource: "scale",
  }, "RequestResponse"],
  ["*/subresource", {
    apiGroup: "apps",
    resource: "statefulsets",
    subresource: "status",
  }, "RequestResponse"],
  ["*/subresource needs a subresource", { apiGroup: "apps", resource: "statefulsets" }, "None"],
  ["resource/* with a name", { resource: "pods", subresource: "log", name: "web" }, "Request"],
  ["resource/* covers the resource", { resource: "pods", name: "web" }, "Request"],
  ["resourceNames exclude others", { resource: "pods", subresource: "log", name: "db" }, "None"],
  ["a group rule", {
    user: { username: "bob", groups: ["auditors"] },
    resource: "nodes",
  }, "Metadata"],
  ["a whole group", { apiGroup: "batch", resource: "jobs" }, "RequestResponse"],
  ["no rule", { apiGroup: "storage.k8s.io", resource: "storageclasses" }, "None"],
];

for (const [what, over, level] of CASES) {
  Deno.test(`evaluatePolicy() matches ${what}: ${level}`, () => {
    const policy = parseAuditPolicy(POLICY);
    assert.equal(evaluatePolicy(policy, attrs(over)).level, level);
  });
}

Deno.test("evaluatePolicy() joins the policy's and the rule's omitStages", () => {
  const policy = parseAuditPolicy(POLICY);
  const d = evaluatePolicy(policy, attrs({ verb: "create", namespace: "audited" }));
  assert.deepEqual([...d.omitStages].sort(), ["RequestReceived", "ResponseStarted"]);
  const m = evaluatePolicy(policy, attrs({ resource: "secrets" }));
  assert.deepEqual([...m.omitStages], ["RequestReceived"]);
});

Deno.test("evaluatePolicy() takes omitManagedFields from the rule, else the policy", () => {
  const policy = parseAuditPolicy(POLICY);
  const groupRule = attrs({ user: { username: "b", groups: ["auditors"] }, resource: "nodes" });
  assert.equal(evaluatePolicy(policy, groupRule).omitManagedFields, true);
  assert.equal(evaluatePolicy(policy, attrs({ resource: "secrets" })).omitManagedFields, false);
  const all = parseAuditPolicy(`{"apiVersion":"audit.k8s.io/v1","kind":"Policy",
    "omitManagedFields":true,"rules":[{"level":"Metadata"}]}`);
  assert.equal(evaluatePolicy(all, attrs({})).omitManagedFields, true);
});

Deno.test("evaluatePolicy() applies a rule with only a level to every request", () => {
  const policy = parseAuditPolicy(
    "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n",
  );
  assert.equal(evaluatePolicy(policy, attrs({})).level, "Metadata");
  assert.equal(
    evaluatePolicy(policy, attrs({ isResourceRequest: false, path: "/readyz" })).level,
    "Metadata",
  );
});

Deno.test("parseAuditPolicy() reports every problem at once", () => {
  assert.throws(
    () =>
      parseAuditPolicy(`
apiVersion: audit.k8s.io/v1beta9
kind: Policy
omitStages: [Sometime]
rules:
  - {}
  - level: Loud
  - level: Metadata
    resources: [{group: ""}]
    nonResourceURLs: ["/x"]
  - level: None
    nonResourceURLs: ["healthz", "/a*b"]
`),
    (err: Error) => {
      for (
        const part of [
          'apiVersion: Unsupported value: "audit.k8s.io/v1beta9"',
          'omitStages[0]: Unsupported value: "Sometime"',
          "rules[0].level: Required value",
          'rules[1].level: Unsupported value: "Loud"',
          "rules[2].nonResourceURLs: Invalid value",
          "rules[3].nonResourceURLs[0]: Invalid value",
          "rules[3].nonResourceURLs[1]: Invalid value",
        ]
      ) assert.ok(err.message.includes(part), `${part} in ${err.message}`);
      return true;
    },
  );
});
