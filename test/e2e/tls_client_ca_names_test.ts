/**
 * The TLS handshake names the client CA bundle's subjects as acceptable client certificate
 * issuers (what `openssl s_client` prints as "Acceptable client certificate CA names"), as
 * kube-apiserver's Go server does; a certificate from another issuer still never authenticates.
 */
import assert from "node:assert/strict";
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { startTestServer } from "../support/test_server.ts";

function hasOpenssl(): boolean {
  try {
    return new Deno.Command("openssl", { args: ["version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const OPENSSL = hasOpenssl();
if (!OPENSSL) console.warn("openssl is not installed: skipping the client CA names check");

Deno.test({
  name: "the TLS CertificateRequest lists the client CA subjects; forged certificates get 401",
  ignore: !OPENSSL,
  async fn() {
    const s = await startTestServer();
    try {
      const out = await new Deno.Command("openssl", {
        args: ["s_client", "-connect", `127.0.0.1:${s.server.port}`],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      const section = text.split("Acceptable client certificate CA names")[1];
      assert.ok(section, text);
      const firstName = section.split("\n")[1].trim();
      assert.equal(firstName, "CN = kubernetes-client-ca");

      const forged = await issueCertificate({
        commonName: "kubernetes-admin",
        organizations: ["system:masters"],
        usages: "client",
      });
      const client = Deno.createHttpClient({
        caCerts: [s.server.caPem],
        cert: forged.certPem,
        key: forged.keyPem,
      });
      try {
        const res = await fetch(`${s.server.url}/api/v1/namespaces`, { client });
        await res.body?.cancel();
        assert.equal(res.status, 401);
      } finally {
        client.close();
      }
    } finally {
      await s.close();
    }
  },
});
