/**
 * kubectl against the authorizer: `auth can-i` (SelfSubjectAccessReview over Protobuf),
 * `get clusterroles` showing the defaults, and a 403 for a user without rights. Skips with a
 * message where kubectl is absent.
 */
import assert from "node:assert/strict";
import { kubectlFor, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

function kubectl(t: TestServer, args: string[], stdin?: string) {
  return runKubectl(kubectlFor(t), args, stdin);
}

Deno.test({
  name: "kubectl auth can-i and get clusterroles answer from RBAC",
  ignore: skipWithoutKubectl("the kubectl authorization tests"),
  fn: async () => {
    const t = await startTestServer();
    try {
      assert.equal((await kubectl(t, ["create", "namespace", "team"])).code, 0);
      const rb = JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "jane-edit", namespace: "team" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }],
      });
      const created = await kubectl(t, ["create", "-f", "-"], rb);
      assert.equal(created.code, 0, created.stderr);
      const canList = ["auth", "can-i", "list", "pods", "--as=jane", "-n", "team"];
      await eventually("can-i list pods as jane to say yes", async () => {
        return (await kubectl(t, canList)).stdout.trim() === "yes";
      });
      const no = await kubectl(t, ["auth", "can-i", "list", "pods", "--as=jane", "-n", "default"]);
      assert.equal(no.stdout.trim(), "no");
      assert.equal(no.code, 1);
      const roles = await kubectl(t, ["get", "clusterroles"]);
      assert.equal(roles.code, 0, roles.stderr);
      for (const n of ["cluster-admin", "admin", "edit", "view", "system:monitoring"]) {
        assert.match(roles.stdout, new RegExp(`^${n} `, "m"));
      }
      const denied = await kubectl(t, ["get", "pods", "-n", "default", "--as=jane"]);
      assert.notEqual(denied.code, 0);
      assert.match(
        denied.stderr,
        /pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"/,
      );
    } finally {
      await t.close();
    }
  },
});
