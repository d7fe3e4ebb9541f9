/**
 * Service validation, as kube-apiserver's ValidateService and ValidateServiceUpdate (field
 * paths and messages transcribed). Allocation errors (ranges, taken values) come from the
 * allocator, which runs after validation.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
} from "../../../../shared/api/validation/identifiers.ts";
import { validateLabels } from "../../../../shared/api/validation/object_meta.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { isIPv4 } from "./ip_range.ts";

const TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const TRAFFIC_POLICIES = ["Cluster", "Local"];
const IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];
const PORT_RANGE = "must be between 1 and 65535, inclusive";

/** The spec of a Service (an empty object when absent). */
export function specOf(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.spec) ? obj.spec : {};
}

/** The ports of a spec that are objects. */
export function portsOf(spec: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(spec.ports) ? spec.ports.filter(isObject) : [];
}

/** Kubernetes' IsValidPortName: the messages of a bad named port. */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name)) errs.push("must contain only alpha-numerics and '-'");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) {
    errs.push("must not begin or end with a hyphen");
  }
  return errs;
}

function validPortNum(n: unknown): boolean {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
}

function validatePort(
  p: Record<string, unknown>,
  f: string,
  needName: boolean,
  names: Set<string>,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof p.name === "string" ? p.name : "";
  if (needName && name === "") errs.push(required(`${f}.name`));
  else if (name !== "") {
    for (const msg of isDNS1123Label(name)) errs.push(invalid(`${f}.name`, name, msg));
    if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
    names.add(name);
  }
  if (!validPortNum(p.port)) errs.push(invalid(`${f}.port`, p.port, PORT_RANGE));
  if (p.protocol === undefined || p.protocol === "") errs.push(required(`${f}.protocol`));
  else if (!PROTOCOLS.includes(String(p.protocol))) {
    errs.push(notSupported(`${f}.protocol`, p.protocol, PROTOCOLS));
  }
  const t = p.targetPort;
  if (typeof t === "number") {
    if (!validPortNum(t)) errs.push(invalid(`${f}.targetPort`, t, PORT_RANGE));
  } else if (typeof t === "string") {
    for (const msg of portNameErrors(t)) errs.push(invalid(`${f}.targetPort`, t, msg));
  }
  if (p.nodePort !== undefined && p.nodePort !== 0 && !validPortNum(p.nodePort)) {
    errs.push(invalid(`${f}.nodePort`, p.nodePort, PORT_RANGE));
  }
  return errs;
}

function validatePorts(spec: Record<string, unknown>, type: string): FieldError[] {
  const errs: FieldError[] = [];
  const ports = portsOf(spec);
  const headless = spec.clusterIP === "None";
  if (ports.length === 0 && !headless && type !== "ExternalName") {
    errs.push(required("spec.ports"));
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  for (const [i, p] of ports.entries()) {
    const f = `spec.ports[${i}]`;
    errs.push(...validatePort(p, f, ports.length > 1, names));
    const key = `${p.port}/${p.protocol}`;
    if (seen.has(key)) errs.push(duplicate(f, { port: p.port, protocol: p.protocol }));
    seen.add(key);
    if (type === "ClusterIP" && p.nodePort) {
      errs.push(forbidden(`${f}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
  }
  if (type === "ExternalName" && ports.some((p) => p.nodePort)) {
    errs.push(forbidden("spec.ports", "may not be used when `type` is 'ExternalName'"));
  }
  return errs;
}

function validateIPs(spec: Record<string, unknown>, type: string): FieldError[] {
  const errs: FieldError[] = [];
  const ip = spec.clusterIP;
  if (type === "ExternalName") {
    if (ip !== undefined && ip !== "") {
      errs.push(forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
    }
    const name = spec.externalName;
    if (typeof name !== "string" || name === "") errs.push(required("spec.externalName"));
    else {
      const host = name.endsWith(".") ? name.slice(0, -1) : name;
      for (const msg of isDNS1123Subdomain(host)) {
        errs.push(invalid("spec.externalName", name, msg));
      }
    }
    return errs;
  }
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  for (const [i, v] of ips.entries()) {
    if (v === "None" && i === 0) continue;
    if (typeof v !== "string" || !isIPv4(v)) {
      errs.push(
        invalid(
          `spec.clusterIPs[${i}]`,
          v,
          "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        ),
      );
    }
  }
  if (ips.length > 1) {
    errs.push(
      invalid("spec.clusterIPs", ips, "may not have more than one IP in a single-stack cluster"),
    );
  }
  if (ip === "None" && (type === "NodePort" || type === "LoadBalancer")) {
    errs.push(invalid("spec.clusterIPs[0]", ip, `may not be set to 'None' for ${type} services`));
  }
  return errs;
}

/** Session affinity config, external IPs and load balancer source ranges. */
function validateExtras(spec: Record<string, unknown>, type: string): FieldError[] {
  const errs: FieldError[] = [];
  const cfg = spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "None" && cfg !== undefined && cfg !== null) {
    errs.push(
      forbidden("spec.sessionAffinityConfig", "must not be set when `sessionAffinity` is None"),
    );
  } else if (spec.sessionAffinity === "ClientIP" && isObject(cfg) && isObject(cfg.clientIP)) {
    const t = cfg.clientIP.timeoutSeconds;
    if (typeof t !== "number" || t <= 0 || t > 86400) {
      errs.push(
        invalid(
          "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
          t,
          "must be greater than 0 and less than 86400",
        ),
      );
    }
  }
  const external = Array.isArray(spec.externalIPs) ? spec.externalIPs : [];
  for (const [i, ip] of external.entries()) {
    if (typeof ip !== "string" || !isIPv4(ip)) {
      errs.push(
        invalid(
          `spec.externalIPs[${i}]`,
          ip,
          "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        ),
      );
    }
  }
  const ranges = Array.isArray(spec.loadBalancerSourceRanges) ? spec.loadBalancerSourceRanges : [];
  if (ranges.length > 0 && type !== "LoadBalancer") {
    errs.push(
      forbidden("spec.loadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"),
    );
  }
  return errs;
}

/** Validates a Service (after defaulting). */
export function validateService(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const type = String(spec.type ?? "");
  const errs: FieldError[] = [];
  if (!TYPES.includes(type)) errs.push(notSupported("spec.type", spec.type, TYPES));
  errs.push(...validatePorts(spec, type), ...validateIPs(spec, type));
  const aff = spec.sessionAffinity;
  if (aff !== "None" && aff !== "ClientIP") {
    errs.push(notSupported("spec.sessionAffinity", aff, ["ClientIP", "None"]));
  }
  if (spec.selector !== undefined) errs.push(...validateLabels(spec.selector, "spec.selector"));
  errs.push(...validateExtras(spec, type));
  const etp = spec.externalTrafficPolicy;
  if (type === "NodePort" || type === "LoadBalancer") {
    if (!TRAFFIC_POLICIES.includes(String(etp))) {
      errs.push(notSupported("spec.externalTrafficPolicy", etp, TRAFFIC_POLICIES));
    }
  } else if (etp !== undefined && etp !== "") {
    errs.push(
      invalid(
        "spec.externalTrafficPolicy",
        etp,
        "may only be set when `type` is 'NodePort' or 'LoadBalancer'",
      ),
    );
  }
  const itp = spec.internalTrafficPolicy;
  if (type !== "ExternalName" && !TRAFFIC_POLICIES.includes(String(itp))) {
    errs.push(
      itp === undefined
        ? required("spec.internalTrafficPolicy")
        : notSupported("spec.internalTrafficPolicy", itp, TRAFFIC_POLICIES),
    );
  }
  const ifp = spec.ipFamilyPolicy;
  if (ifp !== undefined && !IP_FAMILY_POLICIES.includes(String(ifp))) {
    errs.push(notSupported("spec.ipFamilyPolicy", ifp, IP_FAMILY_POLICIES));
  }
  if (spec.healthCheckNodePort && etp !== "Local") {
    errs.push(
      invalid(
        "spec.healthCheckNodePort",
        spec.healthCheckNodePort,
        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
      ),
    );
  }
  return errs;
}

/** Validates an update: the checks of a create, and ClusterIPs stay as allocated. */
export function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateService(obj);
  const a = specOf(obj), b = specOf(old);
  const wasName = b.type === "ExternalName", isName = a.type === "ExternalName";
  if (!wasName && !isName && b.clusterIP && a.clusterIP !== b.clusterIP) {
    errs.push(invalid("spec.clusterIPs[0]", a.clusterIP ?? "", "may not change once set"));
  }
  return errs;
}
