/**
 * NetworkPolicy (networking.k8s.io/v1): which traffic may reach and leave a set of pods.
 * Defaults (policyTypes, port protocols), validation and columns as Kubernetes 1.32's.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { isStrictSubnet, parseCidr } from "../../../../shared/api/validation/network_addresses.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, listOf, objectOf } from "../../generic/table_columns.ts";
import { NAME_COLUMN } from "../../generic/table_columns.ts";
import { formatSelector, validateSelectorShape } from "../../apps/workload.ts";
import { portNameErrors } from "../../core/services/validation.ts";

const PROTOCOLS = ["TCP", "UDP", "SCTP"];
const POLICY_TYPES = ["Ingress", "Egress"];
const PORT_RANGE = "must be between 1 and 65535, inclusive";

function validPort(n: unknown): boolean {
  return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** ValidateNetworkPolicyPort. */
function validatePort(p: Record<string, unknown>, f: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.protocol !== undefined && !PROTOCOLS.includes(String(p.protocol))) {
    errs.push(notSupported(`${f}.protocol`, p.protocol, PROTOCOLS));
  }
  const port = p.port, end = p.endPort;
  if (typeof port === "number") {
    if (!validPort(port)) errs.push(invalid(`${f}.port`, port, PORT_RANGE));
    if (end !== undefined) {
      if (typeof end === "number" && end < port) {
        errs.push(invalid(`${f}.endPort`, end, "must be greater than or equal to `port`"));
      }
      if (!validPort(end)) errs.push(invalid(`${f}.endPort`, end, PORT_RANGE));
    }
  } else if (typeof port === "string") {
    if (end !== undefined) {
      errs.push(invalid(`${f}.endPort`, end, "may not be specified when `port` is non-numeric"));
    }
    for (const m of portNameErrors(port)) errs.push(invalid(`${f}.port`, port, m));
  } else if (end !== undefined) {
    errs.push(invalid(`${f}.endPort`, end, "may not be specified when `port` is not specified"));
  }
  return errs;
}

/** ValidateIPBlock. */
function validateIPBlock(b: Record<string, unknown>, f: string): FieldError[] {
  const cidrText = typeof b.cidr === "string" ? b.cidr : "";
  if (cidrText === "") return [required(`${f}.cidr`)];
  const cidr = parseCidr(cidrText);
  if (!cidr) return [invalid(`${f}.cidr`, cidrText, "not a valid CIDR")];
  const errs: FieldError[] = [];
  for (const [i, e] of (Array.isArray(b.except) ? b.except : []).entries()) {
    const except = parseCidr(String(e));
    if (!except) return [...errs, invalid(`${f}.except[${i}]`, e, "not a valid CIDR")];
    if (!isStrictSubnet(cidr, except)) {
      errs.push(invalid(`${f}.except[${i}]`, e, "must be a strict subset of `cidr`"));
    }
  }
  return errs;
}

/** ValidateNetworkPolicyPeer: one peer kind, an ipBlock alone. */
function validatePeer(peer: Record<string, unknown>, f: string): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const key of ["podSelector", "namespaceSelector"]) {
    if (!isObject(peer[key])) continue;
    peers++;
    errs.push(...validateSelectorShape(`${f}.${key}`, peer[key] as Record<string, unknown>));
  }
  if (isObject(peer.ipBlock)) {
    peers++;
    errs.push(...validateIPBlock(peer.ipBlock, `${f}.ipBlock`));
  }
  if (peers === 0) errs.push(required(f, "must specify a peer"));
  else if (peers > 1 && isObject(peer.ipBlock)) {
    errs.push(forbidden(f, "may not specify both ipBlock and another peer"));
  }
  return errs;
}

function validateRules(spec: Record<string, unknown>, dir: string, peers: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, rule] of listOf(spec[dir]).entries()) {
    const f = `spec.${dir}[${i}]`;
    for (const [j, p] of listOf(rule.ports).entries()) {
      errs.push(...validatePort(p, `${f}.ports[${j}]`));
    }
    for (const [j, p] of listOf(rule[peers]).entries()) {
      errs.push(...validatePeer(p, `${f}.${peers}[${j}]`));
    }
  }
  return errs;
}

/** ValidateNetworkPolicySpec. */
function validateSpec(obj: KubeObject): FieldError[] {
  const spec = objectOf(obj.spec);
  const errs = validateSelectorShape("spec.podSelector", objectOf(spec.podSelector));
  errs.push(...validateRules(spec, "ingress", "from"), ...validateRules(spec, "egress", "to"));
  const types = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  if (types.length > POLICY_TYPES.length) {
    return [
      ...errs,
      invalid("spec.policyTypes", types, "may not specify more than two policyTypes"),
    ];
  }
  for (const [i, t] of types.entries()) {
    if (!POLICY_TYPES.includes(t)) {
      errs.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
    }
  }
  return errs;
}

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as Record<string, unknown>;
  if (!isObject(spec.podSelector)) spec.podSelector = {};
  for (const dir of ["ingress", "egress"]) {
    for (const rule of Array.isArray(spec[dir]) ? spec[dir] : []) {
      for (const p of isObject(rule) && Array.isArray(rule.ports) ? rule.ports : []) {
        if (isObject(p)) p.protocol ??= "TCP";
      }
    }
  }
  const types = spec.policyTypes;
  if (!Array.isArray(types) || types.length === 0) {
    const egress = Array.isArray(spec.egress) && spec.egress.length > 0;
    spec.policyTypes = egress ? ["Ingress", "Egress"] : ["Ingress"];
  }
}

const NETWORK_POLICY_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "Pod-Selector",
      "string",
      "Selects the pods to which this NetworkPolicy object applies.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    formatSelector(objectOf(o.spec).podSelector),
    ageOf(o, now),
  ],
};

/** The NetworkPolicy kind. */
export const networkPolicyKind: KindDef = {
  group: "networking.k8s.io",
  version: "v1",
  kind: "NetworkPolicy",
  plural: "networkpolicies",
  singular: "networkpolicy",
  shortNames: ["netpol"],
  namespaced: true,
  strategy: {
    tableColumns: NETWORK_POLICY_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate: validateSpec,
  },
};
