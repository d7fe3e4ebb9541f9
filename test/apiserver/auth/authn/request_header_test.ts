import assert from "node:assert/strict";
import { RequestHeaderAuthenticator } from "../../../../apiserver/auth/authn/request_header.ts";
import { createCA, issueCertificate } from "../../../../shared/pki/issue_certificate.ts";
import { pemCertificates } from "../../../../shared/pki/pem.ts";

const proxyCa = await createCA("front-proxy-ca");
const clientCa = await createCA("client-ca");
const proxy = await issueCertificate({ ca: proxyCa, commonName: "front-proxy", usages: "client" });
const otherProxy = await issueCertificate({
  ca: proxyCa,
  commonName: "intruder",
  usages: "client",
});
const foreign = await issueCertificate({
  ca: clientCa,
  commonName: "front-proxy",
  usages: "client",
});

const headers = {
  "x-remote-user": "jane",
  "x-remote-group": "dev, ops",
  "x-remote-extra-scopes": "read",
  "X-Remote-Extra-Example.com%2Fteam": "blue",
};
const req = (h: Record<string, string> = headers) => new Request("https://x/", { headers: h });

Deno.test("RequestHeaderAuthenticator.authenticate() believes headers only from a verified proxy", async (t) => {
  const authn = new RequestHeaderAuthenticator({
    caPem: proxyCa.certPem,
    allowedNames: ["front-proxy"],
  });
  await t.step("the proxy's headers become the user", async () => {
    const r = await authn.authenticate(req(), {
      peerCertificates: pemCertificates(proxy.certPem),
    });
    assert.equal(r.kind, "user");
    if (r.kind !== "user") return;
    assert.deepEqual(r.user, {
      username: "jane",
      groups: ["dev", "ops"],
      extra: { scopes: ["read"], "example.com/team": ["blue"] },
    });
  });
  await t.step("a certificate of another CA is invalid", async () => {
    const r = await authn.authenticate(req(), {
      peerCertificates: pemCertificates(foreign.certPem),
    });
    assert.equal(r.kind, "invalid");
  });
  await t.step("a common name not allowed is invalid", async () => {
    const r = await authn.authenticate(req(), {
      peerCertificates: pemCertificates(otherProxy.certPem),
    });
    assert.equal(r.kind, "invalid");
  });
  await t.step("headers without a certificate are ignored", async () => {
    assert.deepEqual(await authn.authenticate(req(), { peerCertificates: [] }), { kind: "none" });
  });
  await t.step("a certificate without a user header is someone else's business", async () => {
    const r = await authn.authenticate(req({}), {
      peerCertificates: pemCertificates(proxy.certPem),
    });
    assert.deepEqual(r, { kind: "none" });
  });
});

Deno.test("RequestHeaderAuthenticator.authenticate() honours custom header names", async () => {
  const authn = new RequestHeaderAuthenticator({
    caPem: proxyCa.certPem,
    usernameHeaders: ["X-User"],
    groupHeaders: ["X-Groups"],
    extraHeaderPrefixes: ["X-Extra-"],
    uidHeaders: ["X-Uid"],
  });
  const r = await authn.authenticate(
    req({
      "x-user": "bob",
      "x-groups": "a",
      "x-extra-k": "v",
      "x-uid": "42",
      "x-remote-user": "no",
    }),
    { peerCertificates: pemCertificates(otherProxy.certPem) },
  );
  assert.equal(r.kind, "user");
  if (r.kind === "user") {
    assert.deepEqual(r.user, { username: "bob", uid: "42", groups: ["a"], extra: { k: ["v"] } });
  }
});
