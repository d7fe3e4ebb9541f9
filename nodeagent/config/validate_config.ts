/**
 * Semantic validation of a merged configuration: ranges, quantities, thresholds, gates, labels
 * and addresses. Every problem is returned, none is thrown.
 *
 * @module
 */
import {
  CONFIG_API_VERSION,
  CONFIG_KIND,
  type NodeAgentConfiguration,
} from "./node_agent_configuration.ts";
import { parseDurationMs } from "../../shared/time/duration.ts";
import { parseQuantity } from "./quantity.ts";
import { parseEvictionThreshold } from "./eviction_threshold.ts";
import { featureGateProblem } from "./feature_gates.ts";

/** A problem found in the merged configuration; the loader adds the file that set the field. */
export interface FieldProblem {
  /** Field path. */
  field: string;
  /** What is wrong. */
  message: string;
}

const RESERVABLE = ["cpu", "memory", "pid", "ephemeral-storage"];
const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function isIP(s: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) return v4.slice(1).every((p) => Number(p) <= 255 && String(Number(p)) === p);
  if (!s.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(s)) return false;
  try {
    new URL(`http://[${s}]/`);
    return true;
  } catch {
    return false;
  }
}

/** Checks a label key (`prefix/name`) the way Kubernetes does; returns a message or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : "";
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0 && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return "prefix part must be a lowercase RFC 1123 subdomain";
  }
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name)) {
    return "name part must consist of at most 63 alphanumeric characters, '-', '_' or '.', " +
      "and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Validates a merged configuration and returns every problem. */
export function validateConfig(c: NodeAgentConfiguration): FieldProblem[] {
  const out: FieldProblem[] = [];
  const bad = (field: string, message: string) => out.push({ field, message });
  if (c.apiVersion !== CONFIG_API_VERSION) {
    bad("apiVersion", `must be ${CONFIG_API_VERSION}, got ${JSON.stringify(c.apiVersion)}`);
  }
  if (c.kind !== CONFIG_KIND) bad("kind", `must be ${CONFIG_KIND}, got ${JSON.stringify(c.kind)}`);
  const positiveDuration = (field: string, value: string) => {
    try {
      if (parseDurationMs(value) <= 0) bad(field, "must be greater than 0");
    } catch (e) {
      bad(field, (e as Error).message);
    }
  };
  positiveDuration("nodeStatusUpdateFrequency", c.nodeStatusUpdateFrequency);
  positiveDuration("nodeStatusReportFrequency", c.nodeStatusReportFrequency);
  try {
    if (parseDurationMs(c.evictionPressureTransitionPeriod) < 0) {
      bad("evictionPressureTransitionPeriod", "must not be negative");
    }
  } catch (e) {
    bad("evictionPressureTransitionPeriod", (e as Error).message);
  }
  if (c.nodeLeaseDurationSeconds <= 0) bad("nodeLeaseDurationSeconds", "must be greater than 0");
  if (c.port < 1 || c.port > 65535) bad("port", `must be between 1 and 65535, got ${c.port}`);
  if (c.maxPods < 0) bad("maxPods", "must not be negative");
  if (!c.rootDir.startsWith("/")) {
    bad("rootDir", `must be an absolute path, got ${JSON.stringify(c.rootDir)}`);
  }
  if (Boolean(c.tlsCertFile) !== Boolean(c.tlsPrivateKeyFile)) {
    bad(
      c.tlsCertFile ? "tlsPrivateKeyFile" : "tlsCertFile",
      "tlsCertFile and tlsPrivateKeyFile must be set together",
    );
  }
  for (const field of ["systemReserved", "kubeReserved"] as const) {
    for (const [k, v] of Object.entries(c[field])) {
      const f = `${field}[${k}]`;
      if (!RESERVABLE.includes(k)) {
        bad(f, `unsupported resource ${JSON.stringify(k)}: supported: ${RESERVABLE.join(", ")}`);
        continue;
      }
      try {
        if (parseQuantity(v) < 0) bad(f, "must not be negative");
      } catch (e) {
        bad(f, (e as Error).message);
      }
    }
  }
  for (const [k, v] of Object.entries(c.evictionHard)) {
    try {
      parseEvictionThreshold(k, v);
    } catch (e) {
      bad(`evictionHard[${k}]`, (e as Error).message);
    }
  }
  for (const [name, value] of Object.entries(c.featureGates)) {
    const message = featureGateProblem(name, value);
    if (message) bad(`featureGates[${name}]`, message);
  }
  c.clusterDNS.forEach((ip, i) => {
    if (!isIP(ip)) bad(`clusterDNS[${i}]`, `must be a valid IP address, got ${JSON.stringify(ip)}`);
  });
  for (const [k, v] of Object.entries(c.nodeLabels)) {
    const p = labelKeyProblem(k);
    if (p) bad(`nodeLabels[${k}]`, `invalid label key: ${p}`);
    if (v.length > 63 || (v !== "" && !LABEL_NAME.test(v))) {
      bad(`nodeLabels[${k}]`, `invalid label value ${JSON.stringify(v)}`);
    }
  }
  for (const k of Object.keys(c.staticPodURLHeader)) {
    if (!HEADER_NAME.test(k)) bad(`staticPodURLHeader[${k}]`, "invalid HTTP header name");
  }
  return out;
}
