import assert from "node:assert/strict";
import { ClientCertificateAuthenticator } from "../../../../apiserver/auth/authn/client_certificate.ts";
import { createCA, issueCertificate } from "../../../../shared/pki/issue_certificate.ts";
import { pemCertificates } from "../../../../shared/pki/pem.ts";

const DAY = 24 * 60 * 60 * 1000;
const ca = await createCA("kubernetes-client-ca");
const otherCa = await createCA("kubernetes-client-ca");
const der = (pem: string) => pemCertificates(pem);
const req = new Request("https://x/");

Deno.test("ClientCertificateAuthenticator.authenticate() maps CN and O, rejects forgeries", async (t) => {
  const admin = await issueCertificate({
    ca,
    commonName: "kubernetes-admin",
    organizations: ["system:masters", "ops"],
    usages: "client",
  });
  const selfSigned = await issueCertificate({
    commonName: "evil",
    organizations: ["system:masters"],
    usages: "client",
  });
  const foreign = await issueCertificate({
    ca: otherCa,
    commonName: "kubernetes-admin",
    organizations: ["system:masters"],
    usages: "client",
  });
  const serverOnly = await issueCertificate({ ca, commonName: "srv", usages: "server" });
  const authn = new ClientCertificateAuthenticator(ca.certPem);

  await t.step("a certificate of the client CA authenticates", async () => {
    const r = await authn.authenticate(req, { peerCertificates: der(admin.certPem) });
    assert.equal(r.kind, "user");
    if (r.kind !== "user") return;
    assert.equal(r.user.username, "kubernetes-admin");
    assert.deepEqual(r.user.groups, ["system:masters", "ops"]);
    assert.match(
      r.user.extra?.["authentication.kubernetes.io/credential-id"]?.[0] ?? "",
      /^X509SHA256=[0-9a-f]{64}$/,
    );
    // A second request hits the cache and answers the same.
    assert.deepEqual(await authn.authenticate(req, { peerCertificates: der(admin.certPem) }), r);
  });
  const rejected: [string, string][] = [
    ["self-signed O=system:masters", selfSigned.certPem],
    ["a second CA's certificate", foreign.certPem],
    ["a server-only certificate", serverOnly.certPem],
  ];
  for (const [name, pem] of rejected) {
    await t.step(`${name} is invalid`, async () => {
      const r = await authn.authenticate(req, { peerCertificates: der(pem) });
      assert.equal(r.kind, "invalid");
    });
  }
  await t.step("no certificate is none", async () => {
    assert.deepEqual(await authn.authenticate(req, { peerCertificates: [] }), { kind: "none" });
  });
});

Deno.test("ClientCertificateAuthenticator.authenticate() rejects expired certificates, cached or not", async () => {
  const start = Date.now();
  const short = await issueCertificate({ ca, commonName: "brief", usages: "client", validDays: 1 });
  let now = new Date(start);
  const authn = new ClientCertificateAuthenticator(ca.certPem, { now: () => now });
  const chain = { peerCertificates: der(short.certPem) };
  assert.equal((await authn.authenticate(req, chain)).kind, "user");
  now = new Date(start + 2 * DAY);
  const r = await authn.authenticate(req, chain);
  assert.equal(r.kind, "invalid");
  if (r.kind === "invalid") assert.match(r.reason, /expired/);
});

Deno.test("ClientCertificateAuthenticator() throws on a bundle without certificates", () => {
  assert.throws(() => new ClientCertificateAuthenticator("not a pem"), /no certificates/);
});
