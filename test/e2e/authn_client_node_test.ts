/**
 * End to end with @kubernetes/client-node: a bearer token (a service account token issued
 * through the client's own TokenRequest call) and a client certificate both authenticate;
 * SelfSubjectReview and TokenReview answer through the typed API.
 */
import assert from "node:assert/strict";
import { AuthenticationV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

function kubeConfig(
  s: TestServer,
  user: { token?: string; certData?: string; keyData?: string },
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: s.server.url, caData: btoa(s.server.caPem) }],
    users: [{ name: "u", ...user }],
    contexts: [{ name: "ctx", cluster: "c", user: "u" }],
    currentContext: "ctx",
  });
  return kc;
}

Deno.test({
  name: "@kubernetes/client-node authenticates with a bearer token and with a client certificate",
  // The client's HTTP agent keeps sockets alive past a test's end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const s = await startTestServer();
    try {
      const admin = new KubeConfig();
      admin.loadFromFile(s.server.kubeconfigPath);
      const core = admin.makeApiClient(CoreV1Api);
      let token = "";

      await t.step("the admin kubeconfig's client certificate is kubernetes-admin", async () => {
        const r = await admin.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({
          body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        });
        assert.equal(r.status?.userInfo?.username, "kubernetes-admin");
        assert.ok(r.status?.userInfo?.groups?.includes("system:masters"));
      });

      await t.step("a service account token from TokenRequest", async () => {
        await core.createNamespacedServiceAccount({
          namespace: "default",
          body: { metadata: { name: "js-robot" } },
        });
        const tr = await core.createNamespacedServiceAccountToken({
          namespace: "default",
          name: "js-robot",
          body: {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenRequest",
            spec: { audiences: ["https://kubernetes.default.svc.cluster.local"] },
          },
        });
        token = tr.status?.token ?? "";
        assert.ok(token.split(".").length === 3);
      });

      await t.step("the bearer token authenticates (TokenReview and a request)", async () => {
        const review = await admin.makeApiClient(AuthenticationV1Api).createTokenReview({
          body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
        });
        assert.equal(review.status?.authenticated, true);
        assert.equal(review.status?.user?.username, "system:serviceaccount:default:js-robot");
        const asRobot = kubeConfig(s, { token }).makeApiClient(CoreV1Api);
        // Authenticated; whether it may list namespaces is authorization's business (403).
        await assert.rejects(asRobot.listNamespace(), (err: { code?: number }) => {
          assert.equal(err.code, 403);
          return true;
        });
        const bad = kubeConfig(s, { token: token + "x" }).makeApiClient(CoreV1Api);
        await assert.rejects(bad.listNamespace(), (err: { code?: number }) => err.code === 401);
      });

      await t.step("a client certificate of the client CA authenticates", async () => {
        const pair = await issueCertificate({
          ca: s.server.pki.clientCa,
          commonName: "js-user",
          organizations: ["system:masters"],
          usages: "client",
        });
        const kc = kubeConfig(s, { certData: btoa(pair.certPem), keyData: btoa(pair.keyPem) });
        const r = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({
          body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
        });
        assert.equal(r.status?.userInfo?.username, "js-user");
        const list = await kc.makeApiClient(CoreV1Api).listNamespace();
        assert.ok(list.items.length >= 4);
      });
    } finally {
      await s.close();
    }
  },
});
