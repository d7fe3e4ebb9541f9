/**
 * Endpoints: the addresses and ports behind a Service, in subsets. Defaults and validation as
 * Kubernetes' SetDefaults_Endpoints and ValidateEndpoints; columns as kubectl prints them.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isDNS1123Label } from "../../../../shared/api/validation/identifiers.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  listOf as list,
  NAME_COLUMN,
} from "../../generic/table_columns.ts";
import { isIPv4 } from "../services/ip_range.ts";

const PROTOCOLS = ["SCTP", "TCP", "UDP"];

function subsetsOf(obj: KubeObject): Record<string, unknown>[] {
  return Array.isArray(obj.subsets) ? obj.subsets.filter(isObject) : [];
}

function validateAddresses(field: string, v: unknown): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, a] of (Array.isArray(v) ? v : []).entries()) {
    const f = `${field}[${i}]`;
    if (!isObject(a) || typeof a.ip !== "string" || a.ip === "") errs.push(required(`${f}.ip`));
    else if (!isIPv4(a.ip) && !a.ip.includes(":")) {
      errs.push(
        invalid(`${f}.ip`, a.ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"),
      );
    }
  }
  return errs;
}

function validatePorts(field: string, v: unknown): FieldError[] {
  const ports = Array.isArray(v) ? v : [];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, p] of ports.entries()) {
    const f = `${field}[${i}]`;
    if (!isObject(p)) continue;
    const name = typeof p.name === "string" ? p.name : "";
    if (ports.length > 1 && name === "") errs.push(required(`${f}.name`));
    else if (name !== "") {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(`${f}.name`, name, msg));
      if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
      names.add(name);
    }
    const n = p.port;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 65535) {
      errs.push(invalid(`${f}.port`, n, "must be between 1 and 65535, inclusive"));
    }
    if (!p.protocol) errs.push(required(`${f}.protocol`));
    else if (!PROTOCOLS.includes(String(p.protocol))) {
      errs.push(notSupported(`${f}.protocol`, p.protocol, PROTOCOLS));
    }
  }
  return errs;
}

function validate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, ss] of subsetsOf(obj).entries()) {
    const f = `subsets[${i}]`;
    const none = (x: unknown) => !Array.isArray(x) || x.length === 0;
    if (none(ss.addresses) && none(ss.notReadyAddresses)) {
      errs.push(required(f, "must specify `addresses` or `notReadyAddresses`"));
    }
    errs.push(
      ...validateAddresses(`${f}.addresses`, ss.addresses),
      ...validateAddresses(`${f}.notReadyAddresses`, ss.notReadyAddresses),
      ...validatePorts(`${f}.ports`, ss.ports),
    );
  }
  return errs;
}

/** Up to three `ip:port` of the ready addresses, then ` + N more...`, as kubectl. */
export function formatEndpoints(obj: KubeObject): string {
  const subsets = subsetsOf(obj);
  if (subsets.length === 0) return "<none>";
  const shown: string[] = [];
  const max = 3;
  let count = 0, more = false;
  const add = (s: string) => {
    if (shown.length === max) more = true;
    else shown.push(s);
  };
  for (const ss of subsets) {
    const addrs = list(ss.addresses);
    const ports = list(ss.ports);
    if (ports.length === 0) {
      count += addrs.length;
      for (const a of addrs) add(String(a.ip));
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) {
        const ip = String(a.ip);
        add(ip.includes(":") ? `[${ip}]:${p.port}` : `${ip}:${p.port}`);
      }
    }
  }
  const text = shown.join(",");
  return more ? `${text} + ${count - max} more...` : text;
}

const ENDPOINTS_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Endpoints", "string", "The addresses and ports of the endpoints."),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", formatEndpoints(o), age(o, now)],
};

/** The Endpoints kind. */
export const endpointsKind: KindDef = {
  group: "",
  version: "v1",
  kind: "Endpoints",
  plural: "endpoints",
  singular: "endpoints",
  shortNames: ["ep"],
  namespaced: true,
  strategy: {
    tableColumns: ENDPOINTS_COLUMNS,
    prepareForCreate: defaultEndpoints,
    prepareForUpdate: defaultEndpoints,
    validate,
  },
};

function defaultEndpoints(obj: KubeObject): void {
  for (const ss of subsetsOf(obj)) for (const p of list(ss.ports)) p.protocol ||= "TCP";
}
