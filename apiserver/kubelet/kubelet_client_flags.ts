/**
 * The flags of the API server's connections to node agents, as kube-apiserver names them:
 * `--kubelet-client-certificate`, `--kubelet-client-key` and
 * `--kubelet-preferred-address-types`. How the agents' serving certificates are verified
 * (`--kubelet-certificate-authority`, `--kubelet-insecure-tls`) is read with the resource
 * metrics flags (resourcemetrics/metrics_options.ts), which reach the same agents.
 *
 * @module
 */
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import type { CertificateAndKey } from "../../shared/pki/issue_certificate.ts";
import type { NodeConnectionOptions } from "./node_connections.ts";

/** The flags' values. */
export interface KubeletClientOptions {
  clientCertFile?: string;
  clientKeyFile?: string;
  preferredAddressTypes?: string[];
}

/** Help of the flags. */
export const KUBELET_FLAG_HELP: Record<string, string> = {
  "kubelet-client-certificate":
    "client certificate (PEM) presented to node agents for logs, exec, attach and port-forward; default: one issued at start from the cluster CA (CN kube-apiserver-kubelet-client, O system:masters)",
  "kubelet-client-key": "key of --kubelet-client-certificate (PEM)",
  "kubelet-preferred-address-types":
    "comma-separated node address types to reach agents by (default InternalIP,Hostname,InternalDNS,ExternalDNS,ExternalIP)",
};

/** The parseArgs specs of the flags. */
export const KUBELET_PARSE_OPTIONS = {
  "kubelet-client-certificate": { type: "string" },
  "kubelet-client-key": { type: "string" },
  "kubelet-preferred-address-types": { type: "string" },
} as const;

/** The options from parsed flag values; problems go to `errors`. */
export function kubeletClientOptionsFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): KubeletClientOptions {
  const str = (k: string) => values[k] as string | undefined;
  const o: KubeletClientOptions = {
    clientCertFile: str("kubelet-client-certificate"),
    clientKeyFile: str("kubelet-client-key"),
  };
  if (Boolean(o.clientCertFile) !== Boolean(o.clientKeyFile)) {
    errors.push("--kubelet-client-certificate and --kubelet-client-key must be given together");
  }
  const types = str("kubelet-preferred-address-types");
  if (types) o.preferredAddressTypes = types.split(",").map((t) => t.trim()).filter(Boolean);
  return o;
}

/** How the agents' serving certificates are verified. */
export interface KubeletServingVerification {
  /** PEM file of the CA bundle (`--kubelet-certificate-authority`); default `clusterCaPem`. */
  caFile?: string;
  /** The cluster CA (it signs `kubernetes.io/kubelet-serving` certificates). */
  clusterCaPem: string;
  /** `--kubelet-insecure-tls`: do not verify. */
  insecure: boolean;
}

/**
 * The connection options: the given client pair, or one issued from `signer` (the cluster CA,
 * which agents trust for client certificates by default); the serving certificates verified as
 * `verify` says.
 */
export async function nodeConnectionOptions(
  o: KubeletClientOptions,
  signer: CertificateAndKey,
  verify: KubeletServingVerification,
): Promise<NodeConnectionOptions> {
  const pair = o.clientCertFile && o.clientKeyFile
    ? {
      certPem: await Deno.readTextFile(o.clientCertFile),
      keyPem: await Deno.readTextFile(o.clientKeyFile),
    }
    : await issueCertificate({
      ca: signer,
      commonName: "kube-apiserver-kubelet-client",
      organizations: ["system:masters"],
      usages: "client",
    });
  return {
    clientCertPem: pair.certPem,
    clientKeyPem: pair.keyPem,
    caPem: verify.caFile ? await Deno.readTextFile(verify.caFile) : verify.clusterCaPem,
    insecureSkipTLSVerify: verify.insecure,
    ...(o.preferredAddressTypes ? { preferredAddressTypes: o.preferredAddressTypes } : {}),
  };
}
