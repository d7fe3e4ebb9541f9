/**
 * The flags of the resource metrics API: `--metrics-resolution` (metrics-server's name: how
 * often the node agents are scraped, default 15s), `--kubelet-certificate-authority`
 * (kube-apiserver's name: the CA bundle the agents' serving certificates are verified against,
 * default the cluster CA, which signs `kubernetes.io/kubelet-serving` certificates) and
 * `--kubelet-insecure-tls` (metrics-server's name: do not verify them, for agents with
 * self-signed certificates).
 *
 * @module
 */
import { statSync } from "node:fs";
import { parseDurationMs } from "../../shared/time/duration.ts";

/** The resource metrics options. */
export interface ResourceMetricsOptions {
  /** Scrape interval (ms). */
  resolutionMs: number;
  /** PEM file of the CA bundle; default the cluster CA. */
  kubeletCertificateAuthority?: string;
  /** Skip verification of the agents' serving certificates. */
  kubeletInsecureTls: boolean;
}

/** Help of the flags. */
export const RESOURCE_METRICS_FLAG_HELP: Record<string, string> = {
  "metrics-resolution":
    "how often node agents are scraped for the metrics.k8s.io API (default 15s)",
  "kubelet-certificate-authority":
    "CA bundle (PEM) node agents' serving certificates are verified against (default the cluster CA)",
  "kubelet-insecure-tls": "do not verify node agents' serving certificates (self-signed agents)",
};

/** parseArgs specs of the flags. */
export const RESOURCE_METRICS_PARSE_OPTIONS = {
  "metrics-resolution": { type: "string" },
  "kubelet-certificate-authority": { type: "string" },
  "kubelet-insecure-tls": { type: "string" },
} as const;

/** Turns the bare boolean flag into `--kubelet-insecure-tls=true`. */
export function normalizeResourceMetricsFlags(args: string[]): string[] {
  return args.map((a) => (a === "--kubelet-insecure-tls" ? `${a}=true` : a));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Reads the flags, pushing every problem onto `errors`. */
export function resourceMetricsOptionsFromFlags(
  values: Record<string, string | string[] | boolean | undefined>,
  errors: string[],
): ResourceMetricsOptions {
  const text = (values["metrics-resolution"] as string | undefined) ?? "15s";
  let resolutionMs = 15_000;
  try {
    resolutionMs = parseDurationMs(text);
    if (resolutionMs <= 0) errors.push(`--metrics-resolution: must be positive, got "${text}"`);
  } catch {
    errors.push(`--metrics-resolution: invalid duration "${text}"`);
  }
  const insecure = values["kubelet-insecure-tls"] as string | undefined;
  if (insecure !== undefined && insecure !== "true" && insecure !== "false") {
    errors.push(`--kubelet-insecure-tls: invalid value "${insecure}" (true or false)`);
  }
  const ca = values["kubelet-certificate-authority"] as string | undefined;
  if (ca === "") errors.push("--kubelet-certificate-authority: must not be empty");
  else if (ca !== undefined && !isFile(ca)) {
    errors.push(`--kubelet-certificate-authority: ${ca} does not exist or cannot be read`);
  }
  return {
    resolutionMs,
    ...(ca ? { kubeletCertificateAuthority: ca } : {}),
    kubeletInsecureTls: insecure === "true",
  };
}
