/**
 * Ingress validation, as kube-apiserver's ValidateIngressCreate, ValidateIngressUpdate and
 * ValidateIngressStatusUpdate (field paths and messages transcribed).
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
} from "../../../../shared/api/validation/identifiers.ts";
import {
  isIP,
  isWildcardDNS1123Subdomain,
  validateIPAddress,
} from "../../../../shared/api/validation/network_addresses.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { listOf, objectOf } from "../../generic/table_columns.ts";
import { portNameErrors } from "../../core/services/validation.ts";

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];
const BAD_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const BAD_SUFFIXES = ["/..", "/."];
const PORT_RANGE = "must be between 1 and 65535, inclusive";
/** The annotation older clients name the class with. */
export const INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class";

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function validateResourceRef(ref: Record<string, unknown>, f: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === "string") {
    for (const m of isDNS1123Subdomain(ref.apiGroup)) {
      errs.push(invalid(`${f}.apiGroup`, ref.apiGroup, m));
    }
  }
  for (const key of ["kind", "name"]) {
    const v = str(ref[key]);
    if (v === "") errs.push(required(`${f}.${key}`));
    else for (const m of isValidPathSegmentName(v)) errs.push(invalid(`${f}.${key}`, v, m));
  }
  return errs;
}

function validateServiceBackend(svc: Record<string, unknown>, f: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(svc.name);
  if (name === "") errs.push(required(`${f}.service.name`));
  else for (const m of isDNS1035Label(name)) errs.push(invalid(`${f}.service.name`, name, m));
  const port = objectOf(svc.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === "number" ? port.number : 0;
  if (portName !== "" && portNumber !== 0) {
    errs.push(invalid(f, "", "cannot set both port name & port number"));
  } else if (portName !== "") {
    for (const m of portNameErrors(portName)) {
      errs.push(invalid(`${f}.service.port.name`, portName, m));
    }
  } else if (portNumber !== 0) {
    if (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535) {
      errs.push(invalid(`${f}.service.port.number`, portNumber, PORT_RANGE));
    }
  } else {
    errs.push(required(f, "port name or number is required"));
  }
  return errs;
}

/** validateIngressBackend: exactly one of `service` and `resource`. */
function validateBackend(backend: unknown, f: string): FieldError[] {
  const b = objectOf(backend);
  const hasResource = isObject(b.resource), hasService = isObject(b.service);
  if (hasResource && hasService) {
    return [invalid(f, "", "cannot set both resource and service backends")];
  }
  if (hasResource) {
    return validateResourceRef(b.resource as Record<string, unknown>, `${f}.resource`);
  }
  if (hasService) return validateServiceBackend(b.service as Record<string, unknown>, f);
  return [invalid(f, "", "resource or service backend is required")];
}

function validatePath(p: Record<string, unknown>, f: string): FieldError[] {
  if (p.pathType === undefined || p.pathType === null) {
    return [required(`${f}.pathType`, "pathType must be specified")];
  }
  const errs: FieldError[] = [];
  const path = str(p.path);
  switch (p.pathType) {
    case "Exact":
    case "Prefix":
      if (!path.startsWith("/")) errs.push(invalid(`${f}.path`, path, "must be an absolute path"));
      for (const seq of path === "" ? [] : BAD_SEQUENCES) {
        if (path.includes(seq)) errs.push(invalid(`${f}.path`, path, `must not contain '${seq}'`));
      }
      for (const suffix of path === "" ? [] : BAD_SUFFIXES) {
        if (path.endsWith(suffix)) {
          errs.push(invalid(`${f}.path`, path, `cannot end with '${suffix}'`));
        }
      }
      break;
    case "ImplementationSpecific":
      if (path !== "" && !path.startsWith("/")) {
        errs.push(invalid(`${f}.path`, path, "must be an absolute path"));
      }
      break;
    default:
      errs.push(notSupported(`${f}.pathType`, p.pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(p.backend, `${f}.backend`));
  return errs;
}

function validateRules(rules: Record<string, unknown>[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, rule] of rules.entries()) {
    const f = `spec.rules[${i}]`;
    const host = str(rule.host);
    if (host !== "") {
      if (isIP(host)) {
        errs.push(invalid(`${f}.host`, host, "must be a DNS name, not an IP address"));
      }
      const msgs = host.includes("*") ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const m of msgs) errs.push(invalid(`${f}.host`, host, m));
    }
    if (!isObject(rule.http)) continue;
    const paths = listOf(rule.http.paths);
    if (paths.length === 0) errs.push(required(`${f}.http.paths`));
    for (const [j, p] of paths.entries()) errs.push(...validatePath(p, `${f}.http.paths[${j}]`));
  }
  return errs;
}

function validateTLS(tls: Record<string, unknown>[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, t] of tls.entries()) {
    const f = `spec.tls[${i}]`;
    for (const [j, host] of (Array.isArray(t.hosts) ? t.hosts : []).entries()) {
      const h = str(host);
      const msgs = h.includes("*") ? isWildcardDNS1123Subdomain(h) : isDNS1123Subdomain(h);
      for (const m of msgs) errs.push(invalid(`${f}.hosts[${j}]`, h, m));
    }
    const secret = str(t.secretName);
    if (secret !== "") {
      for (const m of isDNS1123Subdomain(secret)) errs.push(invalid(`${f}.secretName`, secret, m));
    }
  }
  return errs;
}

/** ValidateIngressSpec. */
export function validateIngressSpec(obj: KubeObject): FieldError[] {
  const spec = objectOf(obj.spec);
  const rules = listOf(spec.rules);
  const errs: FieldError[] = [];
  if (rules.length === 0 && !isObject(spec.defaultBackend)) {
    errs.push(
      invalid("spec", spec.rules ?? null, "either `defaultBackend` or `rules` must be specified"),
    );
  }
  if (isObject(spec.defaultBackend)) {
    errs.push(...validateBackend(spec.defaultBackend, "spec.defaultBackend"));
  }
  errs.push(...validateRules(rules), ...validateTLS(listOf(spec.tls)));
  if (typeof spec.ingressClassName === "string") {
    for (const m of isDNS1123Subdomain(spec.ingressClassName)) {
      errs.push(invalid("spec.ingressClassName", spec.ingressClassName, m));
    }
  }
  return errs;
}

/** ValidateIngressCreate: the spec, and the class annotation agreeing with ingressClassName. */
export function validateIngressCreate(obj: KubeObject): FieldError[] {
  const errs = validateIngressSpec(obj);
  const annotation = obj.metadata.annotations?.[INGRESS_CLASS_ANNOTATION];
  const className = objectOf(obj.spec).ingressClassName;
  if (annotation !== undefined && typeof className === "string" && annotation !== className) {
    errs.push(
      invalid(
        `annotations.${INGRESS_CLASS_ANNOTATION}`,
        annotation,
        "must match `ingressClassName` when both are specified",
      ),
    );
  }
  return errs;
}

/** ValidateIngressLoadBalancerStatus: the addresses a controller reports. */
export function validateIngressStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const known = new Set(
    listOf(objectOf(objectOf(old.status).loadBalancer).ingress).map((i) => str(i.ip)),
  );
  const ingress = listOf(objectOf(objectOf(obj.status).loadBalancer).ingress);
  for (const [i, lb] of ingress.entries()) {
    const f = `status.loadBalancer.ingress[${i}]`;
    const ip = str(lb.ip), hostname = str(lb.hostname);
    if (ip !== "" && !known.has(ip)) errs.push(...validateIPAddress(`${f}.ip`, ip));
    if (hostname !== "") {
      for (const m of isDNS1123Subdomain(hostname)) {
        errs.push(invalid(`${f}.hostname`, hostname, m));
      }
      if (isIP(hostname)) {
        errs.push(invalid(`${f}.hostname`, hostname, "must be a DNS name, not an IP address"));
      }
    }
  }
  return errs;
}
