import assert from "node:assert/strict";
import { WebhookTokenAuthenticator } from "../../../../apiserver/auth/authn/webhook_token.ts";
import { serveHttps } from "../../../../shared/http/https_server.ts";
import { createCA, issueCertificate } from "../../../../shared/pki/issue_certificate.ts";

/** A fake remote TokenReview service on loopback HTTPS (an external system). */
async function fakeWebhook() {
  const ca = await createCA("webhook-ca");
  const cert = await issueCertificate({
    ca,
    commonName: "webhook",
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  const seen: { apiVersion: string; token: string; audiences?: string[] }[] = [];
  const server = await serveHttps(async (req) => {
    const review = await req.json();
    seen.push({
      apiVersion: review.apiVersion,
      token: review.spec.token,
      audiences: review.spec.audiences,
    });
    const flaky = review.spec.token === "flaky" &&
      seen.filter((s) => s.token === "flaky").length < 3;
    if (flaky) return new Response("busy", { status: 503 });
    const ok = review.spec.token === "good-token" || review.spec.token === "flaky";
    const status = ok
      ? {
        authenticated: true,
        user: { username: "remote-user", uid: "r1", groups: ["remote"], extra: { k: ["v"] } },
      }
      : review.spec.token === "boom"
      ? null
      : { authenticated: false, error: "unknown token" };
    if (status === null) return new Response("oops", { status: 500 });
    return Response.json({ apiVersion: review.apiVersion, kind: "TokenReview", status });
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    requestClientCert: false,
  });
  return { caPem: ca.certPem, url: `https://127.0.0.1:${server.port}/authenticate`, seen, server };
}

const bearer = (t: string) =>
  new Request("https://x/", { headers: { authorization: `Bearer ${t}` } });
const conn = { peerCertificates: [] };

Deno.test("WebhookTokenAuthenticator.authenticate() honours the webhook and caches its answers", async (t) => {
  const hook = await fakeWebhook();
  let now = 1_000_000;
  const authn = new WebhookTokenAuthenticator({
    config: { server: hook.url, caPem: hook.caPem },
    cacheTtlMs: 60_000,
    apiAudiences: ["api"],
    now: () => now,
    retryClock: { sleep: () => Promise.resolve(), random: () => 0 },
  });
  try {
    await t.step("an accepted token is the webhook's user", async () => {
      const r = await authn.authenticate(bearer("good-token"), conn);
      assert.equal(r.kind, "user");
      if (r.kind !== "user") return;
      assert.deepEqual(r.user, {
        username: "remote-user",
        uid: "r1",
        groups: ["remote"],
        extra: { k: ["v"] },
      });
      assert.deepEqual(hook.seen[0], {
        apiVersion: "authentication.k8s.io/v1beta1",
        token: "good-token",
        audiences: ["api"],
      });
    });
    await t.step("a second request within the TTL is answered from the cache", async () => {
      assert.equal((await authn.authenticate(bearer("good-token"), conn)).kind, "user");
      assert.equal(hook.seen.length, 1);
    });
    await t.step("after the TTL the webhook is asked again", async () => {
      now += 61_000;
      assert.equal((await authn.authenticate(bearer("good-token"), conn)).kind, "user");
      assert.equal(hook.seen.length, 2);
    });
    await t.step("a rejected token is invalid (and cached)", async () => {
      const r = await authn.authenticate(bearer("bad-token"), conn);
      assert.equal(r.kind, "invalid");
      await authn.authenticate(bearer("bad-token"), conn);
      assert.equal(hook.seen.filter((s) => s.token === "bad-token").length, 1);
    });
    await t.step("a failing webhook is retried 5 times, then invalid and not cached", async () => {
      assert.equal((await authn.authenticate(bearer("boom"), conn)).kind, "invalid");
      assert.equal((await authn.authenticate(bearer("boom"), conn)).kind, "invalid");
      assert.equal(hook.seen.filter((s) => s.token === "boom").length, 10);
    });
    await t.step("a webhook that fails twice, then succeeds, authenticates", async () => {
      const r = await authn.authenticate(bearer("flaky"), conn);
      assert.equal(r.kind, "user");
      assert.equal(hook.seen.filter((s) => s.token === "flaky").length, 3);
    });
    await t.step("no bearer token is none", async () => {
      assert.deepEqual(await authn.authenticate(new Request("https://x/"), conn), { kind: "none" });
    });
  } finally {
    authn.close();
    await hook.server.close();
  }
});

Deno.test("WebhookTokenAuthenticator.authenticate() sends v1 reviews when asked", async () => {
  const hook = await fakeWebhook();
  const authn = new WebhookTokenAuthenticator({
    config: { server: hook.url, caPem: hook.caPem },
    version: "v1",
  });
  try {
    assert.equal((await authn.authenticate(bearer("good-token"), conn)).kind, "user");
    assert.equal(hook.seen[0].apiVersion, "authentication.k8s.io/v1");
  } finally {
    authn.close();
    await hook.server.close();
  }
});
