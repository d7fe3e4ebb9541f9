/**
 * End to end with kubectl 1.32 (skipped where it is absent): `auth whoami` with the admin
 * kubeconfig (client certificate), with impersonation, and with a token from
 * `kubectl create token`, which stops working once the service account is deleted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import {
  kubectlFor,
  type KubectlRun,
  type KubectlTarget,
  runKubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

function kubectl(target: KubectlTarget, ...args: string[]): Promise<KubectlRun> {
  return runKubectl(target, args);
}

Deno.test({
  name: "kubectl auth whoami, impersonation and create token",
  ignore: skipWithoutKubectl("the kubectl authentication tests"),
  async fn(t) {
    const s = await startTestServer();
    const kc = kubectlFor(s);
    try {
      await t.step(
        "whoami with the admin kubeconfig shows the client certificate identity",
        async () => {
          const r = await kubectl(kc, "auth", "whoami", "-o", "json");
          assert.equal(r.code, 0, r.stderr);
          const u = JSON.parse(r.stdout).status.userInfo;
          assert.equal(u.username, "kubernetes-admin");
          assert.deepEqual(u.groups, ["system:masters", "system:authenticated"]);
          assert.match(u.extra["authentication.kubernetes.io/credential-id"][0], /^X509SHA256=/);
        },
      );
      await t.step("whoami --as=jane --as-group=dev shows the impersonated identity", async () => {
        const r = await kubectl(kc, "auth", "whoami", "--as=jane", "--as-group=dev", "-o", "json");
        if (r.code === 0) {
          const u = JSON.parse(r.stdout).status.userInfo;
          assert.equal(u.username, "jane");
          assert.deepEqual(u.groups, ["dev", "system:authenticated"]);
        } else {
          // Authorization without a system:basic-user grant: the 403 names the impersonated user.
          const v = await kubectl(kc, "auth", "whoami", "--as=jane", "--as-group=dev", "-v=8");
          assert.match(v.stderr, /User \\"jane\\" cannot create resource \\"selfsubjectreviews\\"/);
        }
        // Impersonating system:masters too shows the whole impersonated identity.
        const m = await kubectl(
          kc,
          "auth",
          "whoami",
          "--as=jane",
          "--as-group=dev",
          "--as-group=system:masters",
          "-o",
          "json",
        );
        assert.equal(m.code, 0, m.stderr);
        const u = JSON.parse(m.stdout).status.userInfo;
        assert.equal(u.username, "jane");
        assert.deepEqual(u.groups, ["dev", "system:masters", "system:authenticated"]);
      });
      await t.step(
        "create sa, create token, use it, delete sa: the token stops working",
        async () => {
          assert.equal((await kubectl(kc, "create", "sa", "robot")).code, 0);
          const tok = await kubectl(kc, "create", "token", "robot");
          assert.equal(tok.code, 0, tok.stderr);
          const token = tok.stdout.trim();
          assert.equal(token.split(".").length, 3);
          // A kubeconfig without the admin certificate: with both, the certificate decides (as in
          // Kubernetes, client certificates are tried before bearer tokens).
          const tkc = { kubeconfig: join(s.dir, "token.kubeconfig"), home: s.dir };
          await Deno.writeTextFile(
            tkc.kubeconfig,
            renderAdminKubeconfig({
              server: s.server.url,
              caPem: s.server.caPem,
              userName: "robot",
            }),
          );
          const who = await kubectl(tkc, "--token", token, "auth", "whoami", "-o", "json");
          if (who.code === 0) {
            assert.equal(
              JSON.parse(who.stdout).status.userInfo.username,
              "system:serviceaccount:default:robot",
            );
          } else {
            // Authenticated but not allowed to create SelfSubjectReview (no basic-user grant yet).
            assert.doesNotMatch(who.stderr, /Unauthorized/);
          }
          const disc = await kubectl(tkc, "--token", token, "get", "--raw", "/apis");
          assert.equal(disc.code, 0, disc.stderr);
          assert.equal((await kubectl(kc, "delete", "sa", "robot")).code, 0);
          const after = await kubectl(tkc, "--token", token, "get", "--raw", "/apis");
          assert.notEqual(after.code, 0);
          assert.match(after.stderr, /Unauthorized/);
          const who2 = await kubectl(tkc, "--token", token, "auth", "whoami");
          assert.notEqual(who2.code, 0);
          assert.match(who2.stderr, /Unauthorized|must be logged in/);
        },
      );
    } finally {
      await s.close();
    }
  },
});
