/**
 * End to end: webhook token authentication against a fake TokenReview service on loopback
 * HTTPS (configured by a kubeconfig file), with anonymous authentication switched off.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveHttps } from "../../shared/http/https_server.ts";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { renderAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import { startTestServer } from "../support/test_server.ts";

Deno.test("webhook token authentication and --anonymous-auth=false", async (t) => {
  const ca = await createCA("webhook-ca");
  const cert = await issueCertificate({
    ca,
    commonName: "webhook",
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  let calls = 0;
  const hook = await serveHttps(async (req) => {
    calls++;
    const review = await req.json();
    const ok = review.spec.token === "remote-good";
    return Response.json({
      apiVersion: review.apiVersion,
      kind: "TokenReview",
      status: ok
        ? { authenticated: true, user: { username: "remote", groups: ["system:masters"] } }
        : { authenticated: false },
    });
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    requestClientCert: false,
  });
  const dir = await Deno.makeTempDir({ prefix: "apiserver-webhook-" });
  const config = join(dir, "webhook.kubeconfig");
  await Deno.writeTextFile(
    config,
    renderAdminKubeconfig({
      server: `https://127.0.0.1:${hook.port}/authenticate`,
      caPem: ca.certPem,
      userName: "apiserver",
    }),
  );
  const s = await startTestServer([
    `--authentication-token-webhook-config-file=${config}`,
    "--authentication-token-webhook-cache-ttl=1m",
    "--anonymous-auth=false",
  ], { dir });
  try {
    const get = async (headers: Record<string, string>, auth = false) => {
      const res = await s.fetch("/api/v1/namespaces", { headers, auth });
      await res.body?.cancel();
      return res.status;
    };
    await t.step("a token the webhook accepts authenticates", async () => {
      assert.equal(await get({ authorization: "Bearer remote-good" }), 200);
      assert.equal(await get({ authorization: "Bearer remote-good" }), 200);
      assert.equal(calls, 1, "the second answer comes from the cache");
    });
    await t.step("a token the webhook rejects is 401", async () => {
      assert.equal(await get({ authorization: "Bearer remote-bad" }), 401);
    });
    await t.step("the admin token never reaches the webhook", async () => {
      const before = calls;
      assert.equal(await get({}, true), 200);
      assert.equal(calls, before);
    });
    await t.step("no credential is 401 with anonymous off", async () => {
      assert.equal(await get({}), 401);
    });
  } finally {
    await s.close();
    await hook.close();
  }
});
