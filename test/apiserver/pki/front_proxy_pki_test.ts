import assert from "node:assert/strict";
import { join } from "node:path";
import { bootstrapPki } from "../../../apiserver/pki/bootstrap_pki.ts";
import { createCA, issueCertificate } from "../../../shared/pki/issue_certificate.ts";
import { pemCertificates } from "../../../shared/pki/pem.ts";
import { verifyClientCertificate } from "../../../shared/pki/verify_client_certificate.ts";

Deno.test("bootstrapPki() creates a front-proxy CA and client certificate, reused later", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const pki = await bootstrapPki({ dataDir, hostname: "node-1" });
    for (const f of ["front-proxy-ca.key", "front-proxy-client.key"]) {
      assert.equal((await Deno.stat(join(dataDir, "pki", f))).mode! & 0o777, 0o600, f);
    }
    assert.equal(pki.frontProxyCaFile, join(dataDir, "pki", "front-proxy-ca.crt"));
    const client = verifyClientCertificate(
      [pemCertificates(pki.proxyClient.certPem)[0]],
      await Deno.readTextFile(pki.frontProxyCaFile!),
    );
    assert.ok(client.ok);
    assert.equal(client.commonName, "front-proxy-client");
    const again = await bootstrapPki({ dataDir, hostname: "node-1" });
    assert.equal(again.proxyClient.certPem, pki.proxyClient.certPem);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("bootstrapPki() uses --proxy-client-cert-file and --proxy-client-key-file", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const ca = await createCA("my-front-proxy-ca");
    const pair = await issueCertificate({ ca, commonName: "aggregator", usages: "client" });
    const certFile = join(dataDir, "proxy.crt"), keyFile = join(dataDir, "proxy.key");
    await Deno.writeTextFile(certFile, pair.certPem);
    await Deno.writeTextFile(keyFile, pair.keyPem);
    const pki = await bootstrapPki({
      dataDir,
      proxyClientCertFile: certFile,
      proxyClientKeyFile: keyFile,
    });
    assert.equal(pki.proxyClient.certPem, pair.certPem);
    assert.equal(pki.frontProxyCa, undefined);
    await assert.rejects(
      bootstrapPki({
        dataDir,
        proxyClientCertFile: certFile,
        proxyClientKeyFile: join(dataDir, "pki", "ca.key"),
      }),
      /does not match its certificate/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
