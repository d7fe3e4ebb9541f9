/**
 * kubectl against the authorizer: `auth can-i` (SelfSubjectAccessReview over Protobuf),
 * `get clusterroles` showing the defaults, and a 403 for a user without rights. Skips with a
 * message where kubectl is absent.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";

function findKubectl(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/kubectl`).isFile) return `${dir}/kubectl`;
    } catch { /* not here */ }
  }
  return undefined;
}

const KUBECTL = findKubectl();
if (!KUBECTL) console.warn("kubectl is not on PATH: skipping the kubectl authorization tests");

async function kubectl(t: TestServer, args: string[], stdin?: string) {
  const cmd = new Deno.Command(KUBECTL!, {
    args,
    env: { KUBECONFIG: t.server.kubeconfigPath, HOME: t.dir },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = cmd.spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test({
  name: "kubectl auth can-i and get clusterroles answer from RBAC",
  ignore: !KUBECTL,
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
      const deadline = Date.now() + 20_000;
      let yes = await kubectl(t, ["auth", "can-i", "list", "pods", "--as=jane", "-n", "team"]);
      while (yes.stdout.trim() !== "yes" && Date.now() < deadline) {
        yes = await kubectl(t, ["auth", "can-i", "list", "pods", "--as=jane", "-n", "team"]);
      }
      assert.equal(yes.stdout.trim(), "yes");
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
