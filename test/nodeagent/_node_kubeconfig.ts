/**
 * Gives a node agent the identity a kubelet has: a client certificate `CN=system:node:<name>`,
 * `O=system:nodes` signed by the test API server's client CA, in a kubeconfig (mode 0600).
 *
 * @module
 */
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { writeAdminKubeconfig } from "../../apiserver/pki/write_admin_kubeconfig.ts";
import type { RunningServer } from "../../apiserver/server.ts";

/** Writes `<path>` with a node credential for `nodeName` and returns the path. */
export async function writeNodeKubeconfig(
  server: RunningServer,
  nodeName: string,
  path: string,
): Promise<string> {
  const cert = await issueCertificate({
    ca: server.pki.clientCa,
    commonName: `system:node:${nodeName}`,
    organizations: ["system:nodes"],
    usages: "client",
    validDays: 1,
  });
  await writeAdminKubeconfig(path, {
    server: server.url,
    caPem: server.caPem,
    clientCertPem: cert.certPem,
    clientKeyPem: cert.keyPem,
    userName: `system:node:${nodeName}`,
  });
  return path;
}
