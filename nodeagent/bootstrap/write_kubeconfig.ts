/**
 * Writes the agent's kubeconfig files (mode 0600, replaced atomically): the bootstrap one
 * (a bootstrap token) and the node's (its client certificate and key, embedded).
 *
 * @module
 */
import { stringify } from "yaml";
import { writePrivateFile } from "../../shared/pki/write_private_file.ts";

/** The credential of the written kubeconfig's user. */
export type KubeconfigUser =
  | { token: string }
  | { clientCertPem: string; clientKeyPem: string };

const b64 = (text: string) => btoa(text);

/** Writes a kubeconfig for `server` trusting `caPem`, with one user and context. */
export async function writeKubeconfig(
  path: string,
  o: { server: string; caPem: string; userName: string; user: KubeconfigUser },
): Promise<void> {
  const user = "token" in o.user ? { token: o.user.token } : {
    "client-certificate-data": b64(o.user.clientCertPem),
    "client-key-data": b64(o.user.clientKeyPem),
  };
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{
      name: "default-cluster",
      cluster: { server: o.server, "certificate-authority-data": b64(o.caPem) },
    }],
    users: [{ name: o.userName, user }],
    contexts: [{
      name: "default-context",
      context: { cluster: "default-cluster", user: o.userName },
    }],
    "current-context": "default-context",
  };
  await writePrivateFile(path, stringify(doc), 0o600);
}
