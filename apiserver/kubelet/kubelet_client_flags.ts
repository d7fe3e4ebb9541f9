/**
 * The flags of the API server's connections to node agents, as kube-apiserver names them:
 * `--kubelet-client-certificate`, `--kubelet-client-key`, `--kubelet-certificate-authority`
 * and `--kubelet-preferred-address-types`.
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
  caFile?: string;
  preferredAddressTypes?: string[];
}

/** Help of the flags. */
export const KUBELET_FLAG_HELP: Record<string, string> = {
  "kubelet-client-certificate":
    "client certificate (PEM) presented to node agents; default: one issued from the client CA at start (CN kube-apiserver-kubelet-client, O system:masters)",
  "kubelet-client-key": "key of --kubelet-client-certificate (PEM)",
  "kubelet-certificate-authority":
    "CA bundle (PEM) that verifies node agents' serving certificates; default: not verified",
  "kubelet-preferred-address-types":
    "comma-separated node address types to reach agents by (default InternalIP,Hostname,InternalDNS,ExternalDNS,ExternalIP)",
};

/** The parseArgs specs of the flags. */
export const KUBELET_PARSE_OPTIONS = {
  "kubelet-client-certificate": { type: "string" },
  "kubelet-client-key": { type: "string" },
  "kubelet-certificate-authority": { type: "string" },
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
    caFile: str("kubelet-certificate-authority"),
  };
  if (Boolean(o.clientCertFile) !== Boolean(o.clientKeyFile)) {
    errors.push("--kubelet-client-certificate and --kubelet-client-key must be given together");
  }
  const types = str("kubelet-preferred-address-types");
  if (types) o.preferredAddressTypes = types.split(",").map((t) => t.trim()).filter(Boolean);
  return o;
}

/** The connection options: the given files, or a certificate issued from `clientCa`. */
export async function nodeConnectionOptions(
  o: KubeletClientOptions,
  clientCa: CertificateAndKey,
): Promise<NodeConnectionOptions> {
  const pair = o.clientCertFile && o.clientKeyFile
    ? {
      certPem: await Deno.readTextFile(o.clientCertFile),
      keyPem: await Deno.readTextFile(o.clientKeyFile),
    }
    : await issueCertificate({
      ca: clientCa,
      commonName: "kube-apiserver-kubelet-client",
      organizations: ["system:masters"],
      usages: "client",
    });
  return {
    clientCertPem: pair.certPem,
    clientKeyPem: pair.keyPem,
    ...(o.caFile ? { caPem: await Deno.readTextFile(o.caFile) } : {}),
    ...(o.preferredAddressTypes ? { preferredAddressTypes: o.preferredAddressTypes } : {}),
  };
}
