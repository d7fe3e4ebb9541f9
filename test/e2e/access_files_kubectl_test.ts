/**
 * End to end with kubectl: an ID token from a test OpenID issuer authenticates through
 * `--authentication-config`, and a webhook of `--authorization-config` allows or denies
 * `kubectl get pods`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import { kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestOidcIssuer } from "../support/test_oidc_issuer.ts";
import { startSarWebhook } from "../support/test_sar_webhook.ts";
import { startTestServer } from "../support/test_server.ts";

Deno.test({
  name: "kubectl with an ID token: auth whoami, and get pods allowed or denied by a webhook",
  ignore: skipWithoutKubectl("kubectl with OIDC authentication and webhook authorization"),
  async fn() {
    const issuer = await startTestOidcIssuer();
    const hook = await startSarWebhook();
    const dir = await Deno.makeTempDir({ prefix: "apiserver-access-files-" });
    const sarKubeconfig = join(dir, "sar.kubeconfig");
    await Deno.writeTextFile(
      sarKubeconfig,
      renderAdminKubeconfig({
        server: `https://127.0.0.1:${hook.server.port}/authorize`,
        caPem: hook.caPem,
        userName: "apiserver",
      }),
    );
    const authn = join(dir, "authn.json"), authz = join(dir, "authz.json");
    await Deno.writeTextFile(
      authn,
      JSON.stringify({
        apiVersion: "apiserver.config.k8s.io/v1beta1",
        kind: "AuthenticationConfiguration",
        jwt: [{
          issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ["kubectl"] },
          claimMappings: {
            username: { expression: "claims.preferred_username" },
            groups: { claim: "groups", prefix: "" },
            uid: { claim: "sub" },
          },
        }],
      }),
    );
    await Deno.writeTextFile(
      authz,
      JSON.stringify({
        apiVersion: "apiserver.config.k8s.io/v1",
        kind: "AuthorizationConfiguration",
        authorizers: [{
          type: "Webhook",
          name: "policy",
          webhook: {
            timeout: "5s",
            subjectAccessReviewVersion: "v1",
            failurePolicy: "NoOpinion",
            connectionInfo: { type: "KubeConfigFile", kubeConfigFile: sarKubeconfig },
          },
        }, { type: "RBAC", name: "rbac" }],
      }),
    );
    const s = await startTestServer([
      `--authentication-config=${authn}`,
      `--authorization-config=${authz}`,
    ], {
      dir,
    });
    const kubectlAs = async (user: string) => {
      const kubeconfig = join(dir, `${user}.kubeconfig`);
      const token = await issuer.sign({
        sub: `${user}-id`,
        aud: "kubectl",
        preferred_username: user,
        groups: ["dev"],
      });
      await Deno.writeTextFile(
        kubeconfig,
        renderAdminKubeconfig({
          server: s.server.url,
          caPem: s.server.caPem,
          userName: user,
          token,
        }),
      );
      return { kubeconfig, home: dir };
    };
    try {
      const alice = await kubectlAs("alice");
      const whoami = JSON.parse(
        kubectlOk(await runKubectl(alice, ["auth", "whoami", "-o", "json"])),
      );
      assert.equal(whoami.status.userInfo.username, "alice");
      assert.equal(whoami.status.userInfo.uid, "alice-id");
      assert.deepEqual(whoami.status.userInfo.groups, ["dev", "system:authenticated"]);
      kubectlOk(await runKubectl(alice, ["get", "pods", "-n", "default"]));
      const denied = await runKubectl(await kubectlAs("mallory"), ["get", "pods", "-n", "default"]);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /Forbidden/);
      assert.ok(hook.seen.some((x) => x.user === "alice" && x.apiVersion.endsWith("/v1")));
    } finally {
      await s.close();
      await hook.server.close();
      await issuer.close();
    }
  },
});
