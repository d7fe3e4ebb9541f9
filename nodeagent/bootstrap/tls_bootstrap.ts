/**
 * The node agent's TLS bootstrap (the kubelet's `--bootstrap-kubeconfig`): when the node's
 * kubeconfig is missing, unreadable or holds an expired certificate, the agent requests a
 * client certificate for `system:node:<name>` in `system:nodes` with the bootstrap credential
 * (signer `kubernetes.io/kube-apiserver-client-kubelet`), waits until it is approved and
 * issued, and writes the node's kubeconfig (0600) with the new key and certificate.
 *
 * @module
 */
import { dirname } from "node:path";
import { RestClient } from "../../shared/client/rest_client.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { pemCertificates } from "../../shared/pki/pem.ts";
import { parseCertificate } from "../../shared/pki/parse_certificate.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { requestCertificate } from "./request_certificate.ts";
import { writeKubeconfig } from "./write_kubeconfig.ts";

/** The signer and usages of a node's client certificate (ECDSA key: no key encipherment). */
export const NODE_CLIENT = {
  signerName: "kubernetes.io/kube-apiserver-client-kubelet",
  usages: ["digital signature", "client auth"],
};

/** The validity of the first certificate of `certPem`, or undefined. */
export function certificateValidity(certPem: string | undefined) {
  const [der] = pemCertificates(certPem ?? "");
  if (!der) return undefined;
  const cert = parseCertificate(der);
  return { notBefore: cert.notBefore, notAfter: cert.notAfter };
}

/** Whether `path` is a kubeconfig the agent can use now. */
export async function usableKubeconfig(path: string, now: Date): Promise<boolean> {
  try {
    const config = await loadKubeconfig(path);
    if (config.token) return true;
    const validity = certificateValidity(config.clientCertPem);
    return !!validity && validity.notAfter > now;
  } catch {
    return false;
  }
}

/** Options of the bootstrap. */
export interface TlsBootstrapOptions {
  kubeconfig: string;
  bootstrapKubeconfig: string;
  nodeName: string;
  logger?: Logger;
  signal?: AbortSignal;
}

/** Makes sure `kubeconfig` holds a usable node credential, bootstrapping one when needed. */
export async function ensureNodeKubeconfig(o: TlsBootstrapOptions): Promise<void> {
  if (await usableKubeconfig(o.kubeconfig, new Date())) return;
  o.logger?.info("requesting a client certificate with the bootstrap credential", {
    node: o.nodeName,
  });
  const bootstrap = await RestClient.fromKubeconfig(o.bootstrapKubeconfig);
  try {
    const issued = await requestCertificate({
      client: bootstrap,
      subject: { commonName: `system:node:${o.nodeName}`, organizations: ["system:nodes"] },
      ...NODE_CLIENT,
      signal: o.signal,
    });
    await Deno.mkdir(dirname(o.kubeconfig), { recursive: true, mode: 0o700 });
    await writeKubeconfig(o.kubeconfig, {
      server: bootstrap.config.server,
      caPem: bootstrap.config.caPem ?? "",
      userName: "default-auth",
      user: { clientCertPem: issued.certPem, clientKeyPem: issued.keyPem },
    });
    o.logger?.info("client certificate issued", { csr: issued.csrName });
  } finally {
    bootstrap.close();
  }
}
