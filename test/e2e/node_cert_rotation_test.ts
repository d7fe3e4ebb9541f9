import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { parseCertificate } from "../../shared/pki/parse_certificate.ts";
import { pemCertificates } from "../../shared/pki/pem.ts";
import { runTokenCommand } from "../../apiserver/token_command.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { startAgentProcess } from "../nodeagent/_agent_process.ts";

const CSRS = {
  group: "certificates.k8s.io",
  version: "v1",
  resource: "certificatesigningrequests",
};

async function serialOf(kubeconfig: string): Promise<string> {
  const config = await loadKubeconfig(kubeconfig);
  return parseCertificate(pemCertificates(config.clientCertPem!)[0]).serialNumber;
}

Deno.test({
  name:
    "with a short --cluster-signing-duration the agent renews its client and serving certificates and stays Ready",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "node-rotation-e2e-" });
    const ts = await startTestServer([
      "--controllers=*,bootstrapsigner,tokencleaner",
      "--enable-bootstrap-token-auth",
      "--cluster-signing-duration=40s",
      "--auto-approve-node-serving",
    ]);
    try {
      const lines: string[] = [];
      await runTokenCommand(
        ["create", "--print-join-command", `--kubeconfig=${ts.server.kubeconfigPath}`],
        (l) => lines.push(l),
      );
      const args = lines[0].split(" ").slice(1);
      await eventually("the signature", async () => {
        const cm = await ts.client.get<KubeObject>({
          version: "v1",
          resource: "configmaps",
          namespace: "kube-public",
          name: "cluster-info",
        });
        return Object.keys(cm.data as object).some((k) => k.startsWith("jws-kubeconfig-"));
      }, { timeoutMs: 60_000, intervalMs: 200 });
      const kubeconfig = `${dir}/root/nodeagent.kubeconfig`;
      const agent = await startAgentProcess({
        kubeconfig,
        rootDir: `${dir}/root`,
        nodeName: "rotating",
        args,
        extraConfig: "serverTLSBootstrap: true\n",
      });
      try {
        const first = await serialOf(kubeconfig);
        const renewed = await eventually("a renewed certificate", async () => {
          const csrs = (await ts.client.list<KubeObject>(CSRS)).items.filter((c) =>
            (c.spec as Record<string, unknown>).username === "system:node:rotating" &&
            (c.spec as Record<string, unknown>).signerName ===
              "kubernetes.io/kube-apiserver-client-kubelet" &&
            (c.status as Record<string, unknown>)?.certificate
          );
          return csrs.length > 0 && (await serialOf(kubeconfig)) !== first ? csrs : undefined;
        }, { timeoutMs: 180_000, intervalMs: 500, retryErrors: true });
        const conds = (renewed[0].status as { conditions: { reason: string; message: string }[] })
          .conditions;
        assert.match(conds[0].message, /self kubelet client certificate/);
        // Still Ready, its lease renewed with the new certificate.
        const leaseBefore = await ts.client.get<KubeObject>({
          group: "coordination.k8s.io",
          version: "v1",
          resource: "leases",
          namespace: "kube-node-lease",
          name: "rotating",
        });
        await eventually("the lease renewed after rotation", async () => {
          const lease = await ts.client.get<KubeObject>({
            group: "coordination.k8s.io",
            version: "v1",
            resource: "leases",
            namespace: "kube-node-lease",
            name: "rotating",
          });
          return lease.metadata.resourceVersion !== leaseBefore.metadata.resourceVersion;
        }, { timeoutMs: 60_000, intervalMs: 200 });
        const node = await ts.client.get<KubeObject>({
          version: "v1",
          resource: "nodes",
          name: "rotating",
        });
        const ready = (node.status as { conditions: { type: string; status: string }[] }).conditions
          .find((c) => c.type === "Ready");
        assert.equal(ready?.status, "True");
        assert.ok(!agent.logs().includes(args[1].split(".")[1] ?? "-"), "no token in the logs");
        await servingRenewed(ts, agent.port);
      } finally {
        await agent.stop();
      }
    } finally {
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

/** The serving certificate comes from the cluster, is renewed, and the agent keeps serving. */
async function servingRenewed(ts: TestServer, port: number): Promise<void> {
  const http = Deno.createHttpClient({ caCerts: [ts.server.caPem] });
  try {
    const issued = await eventually("two serving certificates issued", async () => {
      const csrs = (await ts.client.list<KubeObject>(CSRS)).items.filter((c) =>
        (c.spec as Record<string, unknown>).signerName === "kubernetes.io/kubelet-serving" &&
        (c.status as Record<string, unknown>)?.certificate
      );
      return csrs.length >= 2 ? csrs : undefined;
    }, { timeoutMs: 180_000, intervalMs: 500, retryErrors: true });
    assert.ok(issued.length >= 2);
    // Verified with the cluster CA only: the agent serves the certificate the cluster issued.
    const res = await fetch(`https://127.0.0.1:${port}/healthz`, { client: http });
    assert.equal(res.status === 200 || res.status === 401 || res.status === 403, true);
    await res.body?.cancel();
  } finally {
    http.close();
  }
}
