import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { parseCertificate } from "../../shared/pki/parse_certificate.ts";
import { pemCertificates } from "../../shared/pki/pem.ts";
import { runTokenCommand } from "../../apiserver/token_command.ts";
import { startTestServer } from "../support/test_server.ts";
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
    "with a short --cluster-signing-duration the agent renews its client certificate and stays Ready",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "node-rotation-e2e-" });
    const ts = await startTestServer([
      "--controllers=*,bootstrapsigner,tokencleaner",
      "--enable-bootstrap-token-auth",
      "--cluster-signing-duration=40s",
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
      });
      try {
        const first = await serialOf(kubeconfig);
        const renewed = await eventually("a renewed certificate", async () => {
          const csrs = (await ts.client.list<KubeObject>(CSRS)).items.filter((c) =>
            (c.spec as Record<string, unknown>).username === "system:node:rotating" &&
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
      } finally {
        await agent.stop();
      }
    } finally {
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
