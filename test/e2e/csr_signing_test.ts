import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import { createCertificateRequest } from "../../shared/pki/create_certificate_request.ts";
import { parseCertificate } from "../../shared/pki/parse_certificate.ts";
import { pemCertificates } from "../../shared/pki/pem.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

const CSRS = {
  group: "certificates.k8s.io",
  version: "v1",
  resource: "certificatesigningrequests",
};

async function submit(
  ts: TestServer,
  name: string,
  spec: Record<string, unknown>,
  subject: Parameters<typeof createCertificateRequest>[0],
) {
  const { csrPem, keyPem } = createCertificateRequest(subject);
  await ts.client.create(CSRS, {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: { request: btoa(csrPem), ...spec },
  });
  return keyPem;
}

async function approve(ts: TestServer, name: string): Promise<void> {
  const csr = await ts.client.get<KubeObject>({ ...CSRS, name });
  csr.status = {
    conditions: [{ type: "Approved", status: "True", reason: "Test", message: "approved" }],
  };
  await ts.client.update({ ...CSRS, name, subresource: "approval" }, csr);
}

function conditions(csr: KubeObject): { type: string; reason?: string; message?: string }[] {
  return ((csr.status ?? {}) as { conditions?: [] }).conditions ?? [];
}

Deno.test({
  name:
    "the CSR signer issues approved client certificates, refuses bad ones, and waits for approval",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const ts = await startTestServer();
    try {
      await t.step(
        "kube-apiserver-client: approved, issued for the requested 15 minutes, usable",
        async () => {
          const keyPem = await submit(ts, "alice", {
            signerName: "kubernetes.io/kube-apiserver-client",
            usages: ["digital signature", "client auth"],
            expirationSeconds: 900,
          }, { commonName: "alice", organizations: ["devs"] });
          await approve(ts, "alice");
          const csr = await eventually("issued", async () => {
            const c = await ts.client.get<KubeObject>({ ...CSRS, name: "alice" });
            return (c.status as Record<string, string>)?.certificate ? c : undefined;
          }, { timeoutMs: 60_000, intervalMs: 100 });
          const certPem = atob((csr.status as Record<string, string>).certificate);
          const cert = parseCertificate(pemCertificates(certPem)[0]);
          assert.equal(cert.commonName, "alice");
          // expirationSeconds shorter than --cluster-signing-duration is honoured.
          const lifetime = cert.notAfter.getTime() - Date.now();
          assert.ok(lifetime > 10 * 60_000 && lifetime <= 15 * 60_000 + 5_000, String(lifetime));
          const client = new RestClient({
            server: ts.server.url,
            caPem: ts.server.caPem,
            clientCertPem: certPem,
            clientKeyPem: keyPem,
          });
          try {
            const review = await client.create<KubeObject>(
              { group: "authentication.k8s.io", version: "v1", resource: "selfsubjectreviews" },
              { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview", metadata: {} },
            );
            const info = (review.status as { userInfo: { username: string; groups: string[] } })
              .userInfo;
            assert.equal(info.username, "alice");
            assert.ok(info.groups.includes("devs"));
          } finally {
            client.close();
          }
        },
      );
      await t.step("a kubelet client request that is not a node's fails validation", async () => {
        await submit(ts, "not-a-node", {
          signerName: "kubernetes.io/kube-apiserver-client-kubelet",
          usages: ["digital signature", "client auth"],
        }, { commonName: "system:node:x", organizations: ["wrong"] });
        await approve(ts, "not-a-node");
        const csr = await eventually("failed", async () => {
          const c = await ts.client.get<KubeObject>({ ...CSRS, name: "not-a-node" });
          return conditions(c).some((x) => x.type === "Failed") ? c : undefined;
        }, { timeoutMs: 60_000, intervalMs: 100 });
        const failed = conditions(csr).find((c) => c.type === "Failed")!;
        assert.equal(failed.reason, "SignerValidationFailure");
        assert.equal(failed.message, "subject organization is not system:nodes");
      });
      await t.step("a node's serving request waits for an explicit approval", async () => {
        await submit(ts, "serving", {
          signerName: "kubernetes.io/kubelet-serving",
          usages: ["digital signature", "server auth"],
        }, { commonName: "system:node:x", organizations: ["system:nodes"], dnsNames: ["x"] });
        await new Promise((r) => setTimeout(r, 1500));
        const csr = await ts.client.get<KubeObject>({ ...CSRS, name: "serving" });
        assert.deepEqual(conditions(csr), []);
      });
      await t.step("legacy-unknown is refused by certificates.k8s.io/v1", async () => {
        await assert.rejects(
          submit(ts, "legacy", {
            signerName: "kubernetes.io/legacy-unknown",
            usages: ["digital signature", "client auth"],
          }, { commonName: "bob" }),
          (err: StatusError) =>
            err.code === 422 && /legacy signerName is not allowed/.test(err.message),
        );
      });
    } finally {
      await ts.close();
    }
  },
});
