import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { bootstrapPki } from "../../../apiserver/pki/bootstrap_pki.ts";
import { createCA, issueCertificate } from "../../../shared/pki/issue_certificate.ts";
import { parseCertificate } from "../../../shared/pki/parse_certificate.ts";
import { pemCertificates } from "../../../shared/pki/pem.ts";
import { verifyClientCertificate } from "../../../shared/pki/verify_client_certificate.ts";

async function mode(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o777;
}

Deno.test("bootstrapPki() creates the PKI, token and kubeconfig on first start", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const pki = await bootstrapPki({
      dataDir,
      sans: ["api.example.com", "10.0.0.7", "fd00::7"],
      hostname: "node-1",
      serverUrl: "https://127.0.0.1:6443",
    });
    for (const f of ["ca.key", "client-ca.key", "apiserver.key", "admin.key", "admin.token"]) {
      assert.equal(await mode(join(dataDir, "pki", f)), 0o600, f);
    }
    assert.equal(await mode(join(dataDir, "admin.kubeconfig")), 0o600);
    assert.equal(await mode(join(dataDir, "pki")), 0o700);

    const serving = parseCertificate(pemCertificates(pki.serving.certPem)[0]);
    for (const dns of ["localhost", "node-1", "api.example.com"]) {
      assert.ok(serving.dnsNames.includes(dns), dns);
    }
    assert.deepEqual(serving.ipAddresses.sort(), ["10.0.0.7", "127.0.0.1", "::1", "fd00::7"]);
    assert.deepEqual(serving.extKeyUsage, ["1.3.6.1.5.5.7.3.1"]);

    const admin = verifyClientCertificate(
      [pemCertificates(pki.adminClient.certPem)[0]],
      await Deno.readTextFile(pki.clientCaFile),
    );
    assert.ok(admin.ok);
    assert.equal(admin.commonName, "kubernetes-admin");
    assert.deepEqual(admin.organizations, ["system:masters"]);

    assert.match(pki.adminToken, /^[A-Za-z0-9_-]{43,}$/);
    const kubeconfig = parse(await Deno.readTextFile(join(dataDir, "admin.kubeconfig")));
    assert.equal(kubeconfig.kind, "Config");
    assert.equal(kubeconfig.clusters[0].cluster.server, "https://127.0.0.1:6443");
    assert.equal(atob(kubeconfig.clusters[0].cluster["certificate-authority-data"]), pki.caPem);
    assert.equal(kubeconfig.users[0].user.token, pki.adminToken);
    assert.equal(kubeconfig["current-context"], kubeconfig.contexts[0].name);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("bootstrapPki() reuses what exists on later starts", async (t) => {
  const dataDir = await Deno.makeTempDir();
  try {
    const first = await bootstrapPki({ dataDir, hostname: "h" });
    await t.step("same SANs: everything reused", async () => {
      const second = await bootstrapPki({ dataDir, hostname: "h" });
      assert.equal(second.serving.certPem, first.serving.certPem);
      assert.equal(second.clientCa.certPem, first.clientCa.certPem);
      assert.equal(second.adminClient.certPem, first.adminClient.certPem);
      assert.equal(second.adminToken, first.adminToken);
      assert.equal(second.caPem, first.caPem);
    });
    await t.step("a new SAN: serving certificate reissued from the same CA", async () => {
      const third = await bootstrapPki({ dataDir, hostname: "h", sans: ["new.example"] });
      assert.notEqual(third.serving.certPem, first.serving.certPem);
      assert.equal(third.caPem, first.caPem);
      assert.equal(third.adminToken, first.adminToken);
    });
    await t.step("near expiry: reissued", async () => {
      const later = new Date(Date.now() + 360 * 24 * 3600 * 1000);
      const fourth = await bootstrapPki({
        dataDir,
        hostname: "h",
        sans: ["new.example"],
        now: later,
      });
      assert.notEqual(fourth.adminClient.certPem, first.adminClient.certPem);
    });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("bootstrapPki() serves a given certificate and key", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const own = await createCA("my-ca");
    const leaf = await issueCertificate({ ca: own, commonName: "mine", usages: "server" });
    await Deno.writeTextFile(join(dataDir, "tls.crt"), leaf.certPem + own.certPem);
    await Deno.writeTextFile(join(dataDir, "tls.key"), leaf.keyPem);
    const pki = await bootstrapPki({
      dataDir,
      certFile: join(dataDir, "tls.crt"),
      keyFile: join(dataDir, "tls.key"),
    });
    assert.equal(pki.serving.keyPem, leaf.keyPem);
    assert.equal(pki.caPem, own.certPem);
    await assert.rejects(
      bootstrapPki({
        dataDir,
        certFile: join(dataDir, "tls.crt"),
        keyFile: join(dataDir, "pki", "ca.key"),
      }),
      /does not match/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
