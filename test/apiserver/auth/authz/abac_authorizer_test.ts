import assert from "node:assert/strict";
import {
  AbacAuthorizer,
  parseAbacPolicies,
} from "../../../../apiserver/auth/authz/abac_authorizer.ts";
import type { AuthzAttributes } from "../../../../apiserver/auth/authz/authorizer.ts";
import { resourceAttributes } from "./_resource_attributes.ts";

const FILE = [
  `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}`,
  `# comment`,
  ``,
  `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "projectCaribou", "resource": "pods", "apiGroup": "*", "readonly": true}}`,
  `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "readonly": true, "nonResourcePath": "/version*"}}`,
  `{"user": "legacy"}`,
].join("\n");

function a(user: string, verb: string, o: Partial<AuthzAttributes> = {}): AuthzAttributes {
  const who = { username: user, groups: ["system:authenticated"] };
  return resourceAttributes(who, verb, "pods", { namespace: "projectCaribou", ...o });
}

Deno.test("AbacAuthorizer.authorize() matches Kubernetes' policy file semantics", async (t) => {
  const abac = new AbacAuthorizer(parseAbacPolicies(FILE));
  const cases: [string, AuthzAttributes, boolean][] = [
    ["alice anything", a("alice", "delete", { resource: "secrets", namespace: "x" }), true],
    ["bob reads pods", a("bob", "list"), true],
    ["bob readonly", a("bob", "create"), false],
    ["bob other namespace", a("bob", "get", { namespace: "x" }), false],
    [
      "non-resource prefix",
      a("eve", "get", { isResourceRequest: false, path: "/version/x" }),
      true,
    ],
    [
      "non-resource readonly",
      a("eve", "post", { isResourceRequest: false, path: "/version" }),
      false,
    ],
    [
      "v0 line matches everything",
      a("legacy", "delete", { resource: "nodes", namespace: "" }),
      true,
    ],
    ["nobody", a("eve", "get"), false],
  ];
  for (const [name, attrs, want] of cases) {
    await t.step(name, async () => {
      assert.equal((await abac.authorize(attrs)).decision, want ? "allow" : "noOpinion");
    });
  }
});

Deno.test("parseAbacPolicies() names the bad line", () => {
  assert.throws(() => parseAbacPolicies(`{"user":"a"}\n{nope`), /line 2: invalid JSON/);
  assert.throws(
    () => parseAbacPolicies(`{"apiVersion":"v9","kind":"Policy","spec":{}}`),
    /line 1: unsupported policy version/,
  );
});
