import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { Logger } from "../../../shared/log/mod.ts";
import { caCertHash } from "../../../shared/bootstrap/ca_cert_hash.ts";
import { pemCertificates } from "../../../shared/pki/pem.ts";
import { bootstrapTokenSecret } from "../../../apiserver/token_command.ts";
import { discoverCluster } from "../../../nodeagent/bootstrap/join_discovery.ts";
import { startTestServer } from "../../support/test_server.ts";
import { eventually } from "../../support/eventually.ts";

Deno.test({
  name: "discoverCluster() verifies the JWS and the CA pin; the unsafe skip warns",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const ts = await startTestServer(["--controllers=*,bootstrapsigner"]);
    try {
      const token = "disc01.0123456789abcdef";
      await ts.client.create(
        { version: "v1", resource: "secrets", namespace: "kube-system" },
        bootstrapTokenSecret("disc01", "0123456789abcdef", 0),
      );
      await eventually("the signature", async () => {
        const cm = await ts.client.get<KubeObject>({
          version: "v1",
          resource: "configmaps",
          namespace: "kube-public",
          name: "cluster-info",
        });
        return (cm.data as Record<string, string>)["jws-kubeconfig-disc01"];
      }, { timeoutMs: 60_000, intervalMs: 100 });
      const hash = caCertHash(pemCertificates(ts.server.caPem)[0]);
      const found = await discoverCluster({ server: ts.server.url, token, caCertHashes: [hash] });
      assert.equal(found.server, ts.server.url);
      assert.equal(found.caPem, ts.server.caPem);
      await assert.rejects(
        discoverCluster({
          server: ts.server.url,
          token: "disc01.ffffffffffffffff",
          caCertHashes: [hash],
        }),
        /failed to verify JWS signature/,
      );
      await assert.rejects(
        discoverCluster({
          server: ts.server.url,
          token: "nosuch.0123456789abcdef",
          caCertHashes: [hash],
        }),
        /token id "nosuch" is invalid for this cluster or it has expired/,
      );
      const lines: string[] = [];
      const logger = new Logger({ verbosity: 0, sink: (line: string) => lines.push(line) });
      await discoverCluster({
        server: ts.server.url,
        token,
        caCertHashes: [],
        unsafeSkipCaVerification: true,
        logger,
      });
      assert.ok(lines.some((l) => l.includes("--discovery-token-unsafe-skip-ca-verification")));
      assert.ok(lines.every((l) => !l.includes("0123456789abcdef")));
    } finally {
      await ts.close();
    }
  },
});
