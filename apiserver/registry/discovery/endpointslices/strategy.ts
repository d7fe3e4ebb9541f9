/**
 * EndpointSlice (discovery.k8s.io/v1): a subset of a Service's endpoints, of one address type.
 * Defaults, validation (addresses checked per address type, the type immutable) and columns as
 * Kubernetes 1.32's.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isDNS1123Label, isQualifiedName } from "../../../../shared/api/validation/identifiers.ts";
import {
  validateFullyQualifiedDomainName,
  validateIPv4Address,
  validateIPv6Address,
  validateNonSpecialIP,
} from "../../../../shared/api/validation/network_addresses.ts";
import { validateLabels } from "../../../../shared/api/validation/object_meta.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, listOf, NAME_COLUMN } from "../../generic/table_columns.ts";
import { immutable } from "../../apps/workload.ts";

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_ENDPOINTS = 1000;
const MAX_TOPOLOGY_LABELS = 16;

/** The label naming the Service an EndpointSlice belongs to. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

function tooMany(field: string, actual: number, max: number): FieldError {
  return {
    type: "FieldValueTooMany",
    field,
    value: actual,
    detail: `must have at most ${max} items`,
  };
}

function validateAddress(type: unknown, field: string, address: string): FieldError[] {
  switch (type) {
    case "IP":
      return isValidAnyIP(field, address);
    case "IPv4":
      return [...validateIPv4Address(field, address), ...validateNonSpecialIP(field, address)];
    case "IPv6":
      return [...validateIPv6Address(field, address), ...validateNonSpecialIP(field, address)];
    case "FQDN":
      return validateFullyQualifiedDomainName(field, address);
  }
  return [];
}

function isValidAnyIP(field: string, address: string): FieldError[] {
  const v4 = validateIPv4Address(field, address), v6 = validateIPv6Address(field, address);
  return v4.length === 0 || v6.length === 0
    ? []
    : [invalid(field, address, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")];
}

function validateEndpoints(obj: KubeObject): FieldError[] {
  const endpoints = Array.isArray(obj.endpoints) ? obj.endpoints : [];
  if (endpoints.length > MAX_ENDPOINTS) {
    return [tooMany("endpoints", endpoints.length, MAX_ENDPOINTS)];
  }
  const errs: FieldError[] = [];
  for (const [i, e] of listOf(endpoints).entries()) {
    const f = `endpoints[${i}]`;
    const addresses = Array.isArray(e.addresses) ? e.addresses : [];
    if (addresses.length === 0) {
      errs.push(required(`${f}.addresses`, "must contain at least 1 address"));
    } else if (addresses.length > MAX_ADDRESSES) {
      errs.push(tooMany(`${f}.addresses`, addresses.length, MAX_ADDRESSES));
    }
    for (const [j, a] of addresses.entries()) {
      errs.push(...validateAddress(obj.addressType, `${f}.addresses[${j}]`, String(a)));
    }
    const topology = isObject(e.deprecatedTopology) ? e.deprecatedTopology : {};
    if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
      errs.push(tooMany(`${f}.topology`, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
    }
    errs.push(...validateLabels(topology, `${f}.topology`));
    if (typeof e.hostname === "string") {
      for (const m of isDNS1123Label(e.hostname)) {
        errs.push(invalid(`${f}.hostname`, e.hostname, m));
      }
    }
  }
  return errs;
}

function validatePorts(obj: KubeObject): FieldError[] {
  const ports = Array.isArray(obj.ports) ? obj.ports : [];
  if (ports.length > MAX_PORTS) return [tooMany("ports", ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, p] of listOf(ports).entries()) {
    const f = `ports[${i}]`;
    const name = typeof p.name === "string" ? p.name : "";
    if (name !== "") {
      for (const m of isDNS1123Label(name)) errs.push(invalid(`${f}.name`, name, m));
    }
    if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
    names.add(name);
    if (p.protocol === undefined) errs.push(required(`${f}.protocol`));
    else if (!PROTOCOLS.includes(String(p.protocol))) {
      errs.push(notSupported(`${f}.protocol`, p.protocol, PROTOCOLS));
    }
    if (typeof p.appProtocol === "string") {
      for (const m of isQualifiedName(p.appProtocol)) {
        errs.push(invalid(`${f}.appProtocol`, p.appProtocol, m));
      }
    }
  }
  return errs;
}

/** ValidateEndpointSlice with the address types `allowed`. */
function validateSlice(obj: KubeObject, allowed: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  const type = obj.addressType;
  if (type === undefined || type === "") errs.push(required("addressType"));
  else if (!allowed.includes(String(type))) {
    errs.push(notSupported("addressType", type, allowed));
  }
  return [...errs, ...validateEndpoints(obj), ...validatePorts(obj)];
}

/** SetDefaults_EndpointPort: an empty name and TCP. */
function setDefaults(obj: KubeObject): void {
  for (const p of Array.isArray(obj.ports) ? obj.ports : []) {
    if (!isObject(p)) continue;
    p.name ??= "";
    p.protocol ??= "TCP";
  }
}

/** A v1 write clears the read-only `deprecatedTopology` of the endpoints it changes. */
function dropTopology(obj: KubeObject): void {
  for (const e of Array.isArray(obj.endpoints) ? obj.endpoints : []) {
    if (isObject(e)) delete e.deprecatedTopology;
  }
}

/** Up to three items, then ` + N more...`, `<unset>` when none (kubectl's listWithMoreString). */
function listWithMore(items: string[]): string {
  const max = 3;
  if (items.length > max) return `${items.slice(0, max).join(",")} + ${items.length - max} more...`;
  return items.length === 0 ? "<unset>" : items.join(",");
}

const ENDPOINT_SLICE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "AddressType",
      "string",
      "addressType specifies the type of address carried by this EndpointSlice.",
    ),
    column(
      "Ports",
      "string",
      "ports specifies the list of network ports exposed by each endpoint in this slice.",
    ),
    column("Endpoints", "string", "endpoints is a list of unique endpoints in this slice."),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const ports = listOf(o.ports).map((p) =>
      typeof p.port === "number" ? String(p.port) : typeof p.name === "string" ? p.name : "*"
    );
    const addresses = listOf(o.endpoints).flatMap((e) =>
      Array.isArray(e.addresses) ? e.addresses.map(String) : []
    );
    return [
      o.metadata?.name ?? "",
      String(o.addressType ?? ""),
      listWithMore(ports),
      listWithMore(addresses),
      ageOf(o, now),
    ];
  },
};

/** The EndpointSlice kind. */
export const endpointSliceKind: KindDef = {
  group: "discovery.k8s.io",
  version: "v1",
  kind: "EndpointSlice",
  plural: "endpointslices",
  singular: "endpointslice",
  namespaced: true,
  strategy: {
    tableColumns: ENDPOINT_SLICE_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      dropTopology(obj);
    },
    prepareForUpdate(obj, old) {
      setDefaults(obj);
      if (!deepEqual(obj.endpoints ?? null, old.endpoints ?? null)) dropTopology(obj);
      // Labels (the owning Service) count as a change of the slice too.
      if (!deepEqual(obj.metadata.labels ?? {}, old.metadata.labels ?? {})) {
        obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
    },
    validate: (obj) => validateSlice(obj, ADDRESS_TYPES),
    validateUpdate(obj, old) {
      return [
        ...validateSlice(obj, ["FQDN", "IP", "IPv4", "IPv6"]),
        ...immutable("addressType", obj.addressType, old.addressType),
      ];
    },
  },
};
