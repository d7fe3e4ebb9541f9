/**
 * The CA that signs the API server's kubelet client certificate: the cluster CA, which node
 * agents trust for client certificates by default (their kubeconfig's CA).
 *
 * @module
 */
import { join } from "node:path";
import type { CertificateAndKey } from "../../shared/pki/issue_certificate.ts";
import type { Pki } from "../pki/bootstrap_pki.ts";

/** The cluster CA pair under the PKI directory, else the client CA. */
export async function signingCa(pki: Pki): Promise<CertificateAndKey> {
  try {
    return {
      certPem: await Deno.readTextFile(join(pki.dir, "ca.crt")),
      keyPem: await Deno.readTextFile(join(pki.dir, "ca.key")),
    };
  } catch {
    return pki.clientCa;
  }
}
