/**
 * Kubernetes' checks of what a node may request (certificates/v1 helpers
 * `ValidateKubeletClientCSR` and `ValidateKubeletServingCSR`) and of kube-apiserver client
 * usages, with kube's messages.
 *
 * @module
 */
import type { RequestedNames } from "../../../shared/pki/certificate_request_names.ts";

/** The signers the cluster CA signs for. */
export const SIGNERS = {
  client: "kubernetes.io/kube-apiserver-client",
  kubeletClient: "kubernetes.io/kube-apiserver-client-kubelet",
  kubeletServing: "kubernetes.io/kubelet-serving",
} as const;

function sameSet(usages: string[], want: string[]): boolean {
  const set = new Set(usages);
  return set.size === want.length && want.every((u) => set.has(u));
}

function nodeSubject(n: RequestedNames): string | undefined {
  if (n.organizations.length !== 1 || n.organizations[0] !== "system:nodes") {
    return "subject organization is not system:nodes";
  }
  if (!n.commonName.startsWith("system:node:")) {
    return "subject common name does not begin with system:node:";
  }
  return undefined;
}

/** Why a kubelet client request is not one; undefined when it is. */
export function kubeletClientProblem(n: RequestedNames, usages: string[]): string | undefined {
  const subject = nodeSubject(n);
  if (subject) return subject;
  if (n.dnsNames.length) return "dnsNames are not allowed";
  if (n.emailAddresses.length) return "email addresses are not allowed";
  if (n.ipAddresses.length) return "IP addresses are not allowed";
  if (n.uris.length) return "URI SANs are not allowed";
  if (
    !sameSet(usages, ["key encipherment", "digital signature", "client auth"]) &&
    !sameSet(usages, ["digital signature", "client auth"])
  ) {
    return `usages did not match [digital signature client auth]`;
  }
  return undefined;
}

/** Why a kubelet serving request is not one; undefined when it is. */
export function kubeletServingProblem(n: RequestedNames, usages: string[]): string | undefined {
  const subject = nodeSubject(n);
  if (subject) return subject;
  if (
    !sameSet(usages, ["key encipherment", "digital signature", "server auth"]) &&
    !sameSet(usages, ["digital signature", "server auth"])
  ) {
    return "usages did not match [digital signature server auth]";
  }
  if (n.dnsNames.length === 0 && n.ipAddresses.length === 0) {
    return "DNS or IP subjectAltName is required";
  }
  if (n.emailAddresses.length) return "Email subjectAltNames are not allowed";
  if (n.uris.length) return "URI subjectAltNames are not allowed";
  return undefined;
}

/** Why a kube-apiserver client request is not acceptable; undefined when it is. */
export function apiserverClientProblem(usages: string[]): string | undefined {
  const valid = new Set(["digital signature", "key encipherment", "client auth"]);
  for (const u of usages) if (!valid.has(u)) return `invalid usage for client certificate: ${u}`;
  if (!usages.includes("client auth")) {
    return "missing required usage for client certificate: client auth";
  }
  return undefined;
}
