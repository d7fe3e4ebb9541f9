/**
 * Writes the administrator's kubeconfig: one cluster, one user, one context, as kubectl reads
 * it without any other configuration. The file holds a credential, so it is mode 0600.
 *
 * @module
 */
import { stringify } from "yaml";
import { writePrivateFile } from "../../shared/pki/write_private_file.ts";

/** What the admin kubeconfig holds. */
export interface AdminKubeconfigOptions {
  /** The API server URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** The CA that signed the serving certificate (PEM); omitted: the system roots are used. */
  caPem?: string;
  /** A bearer token for the user. */
  token?: string;
  /** A client certificate (PEM) for the user, with clientKeyPem. */
  clientCertPem?: string;
  /** The client certificate's private key (PEM). */
  clientKeyPem?: string;
  /** Cluster name (default `kubernetes`). */
  clusterName?: string;
  /** User name (default `kubernetes-admin`). */
  userName?: string;
}

function b64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Renders the kubeconfig YAML. */
export function renderAdminKubeconfig(options: AdminKubeconfigOptions): string {
  const clusterName = options.clusterName ?? "kubernetes";
  const userName = options.userName ?? "kubernetes-admin";
  const contextName = `${userName}@${clusterName}`;
  const cluster: Record<string, string> = { server: options.server };
  if (options.caPem) cluster["certificate-authority-data"] = b64(options.caPem);
  const user: Record<string, string> = {};
  if (options.clientCertPem || options.clientKeyPem) {
    if (!options.clientCertPem || !options.clientKeyPem) {
      throw new Error("a client certificate needs both clientCertPem and clientKeyPem");
    }
    user["client-certificate-data"] = b64(options.clientCertPem);
    user["client-key-data"] = b64(options.clientKeyPem);
  }
  if (options.token) user.token = options.token;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster }],
    users: [{ name: userName, user }],
    contexts: [{ name: contextName, context: { cluster: clusterName, user: userName } }],
    "current-context": contextName,
    preferences: {},
  }, { lineWidth: 0 });
}

/** Writes the admin kubeconfig to `path` (atomically, mode 0600). */
export async function writeAdminKubeconfig(
  path: string,
  options: AdminKubeconfigOptions,
): Promise<void> {
  await writePrivateFile(path, renderAdminKubeconfig(options));
}

/**
 * The URL clients should use for a server bound to `bindAddress`: a wildcard address becomes
 * the loopback address, IPv6 literals get brackets.
 */
export function serverUrlFor(bindAddress: string, port: number): string {
  let host = bindAddress;
  if (host === "" || host === "0.0.0.0") host = "127.0.0.1";
  else if (host === "::" || host === "[::]") host = "::1";
  host = host.replace(/^\[|\]$/g, "");
  return host.includes(":") ? `https://[${host}]:${port}` : `https://${host}:${port}`;
}
