/**
 * Validation pieces the resource.k8s.io kinds share, with kube 1.32's messages and limits:
 * device requests, selectors, constraints and opaque configuration.
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../shared/api/validation/field_errors.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
} from "../../../shared/api/validation/identifiers.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { listOf, objectOf } from "../generic/table_columns.ts";
import { validateCSIDriverName } from "../storage/storage_validation.ts";

/** DeviceRequestsMaxSize, DeviceSelectorsMaxSize, DeviceConstraintsMaxSize, DeviceConfigMaxSize. */
export const MAX_LIST = 32;
const ALLOCATION_MODES = ["All", "ExactCount"];

/** A string field's value, "" for anything else. */
export const str = (v: unknown): string => typeof v === "string" ? v : "";

/** field.TooMany. */
export function tooMany(field: string, count: number, max: number): FieldError {
  return { type: "FieldValueTooMany", field, detail: `${count}: must have at most ${max} items` };
}

/** One Invalid error per message of `check` on a non-empty `value`; Required when empty. */
export function named(field: string, value: unknown, check: (s: string) => string[]) {
  const s = str(value);
  if (s === "") return [required(field)];
  return check(s).map((m) => invalid(field, s, m));
}

/** A list at `field` of at most MAX_LIST items, each checked by `item`. */
export function eachOf(
  field: string,
  value: unknown,
  item: (f: string, v: Record<string, unknown>) => FieldError[],
  max = MAX_LIST,
): FieldError[] {
  const list = listOf(value);
  if (list.length > max) return [tooMany(field, list.length, max)];
  return list.flatMap((v, i) => item(`${field}[${i}]`, v));
}

/** validateSelector: a CEL selector with an expression. */
export function validateSelectors(field: string, selectors: unknown): FieldError[] {
  return eachOf(field, selectors, (f, s) => {
    if (!isObject(s.cel)) return [required(`${f}.cel`)];
    return str(s.cel.expression).trim() === "" ? [required(`${f}.cel.expression`)] : [];
  });
}

/** validateDeviceConfiguration: exactly one kind of configuration (opaque in 1.32). */
function validateConfiguration(field: string, config: Record<string, unknown>): FieldError[] {
  if (!isObject(config.opaque)) return [required(field, "exactly one field must be set")];
  const opaque = config.opaque,
    errs = validateCSIDriverName(`${field}.opaque.driver`, opaque.driver);
  const params = opaque.parameters;
  if (params === undefined || params === null) errs.push(required(`${field}.opaque.parameters`));
  else if (!isObject(params)) {
    errs.push(
      invalid(
        `${field}.opaque.parameters`,
        "<value omitted>",
        "parameters must be a valid JSON object",
      ),
    );
  }
  return errs;
}

/** The configurations of a class (`claimRequests` undefined) or a claim, whose requests they name. */
export function validateConfigs(
  field: string,
  configs: unknown,
  claimRequests?: Set<string>,
): FieldError[] {
  return eachOf(field, configs, (f, c) => {
    const errs = claimRequests
      ? validateRequestRefs(`${f}.requests`, c.requests, claimRequests)
      : [];
    return [...errs, ...validateConfiguration(f, c)];
  });
}

/** Each entry of `refs` names a request of the claim, once. */
function validateRequestRefs(field: string, refs: unknown, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [], seen = new Set<string>();
  for (const [i, ref] of (Array.isArray(refs) ? refs : []).entries()) {
    const s = str(ref);
    if (s === "") errs.push(required(`${field}[${i}]`));
    else if (!names.has(s)) {
      errs.push(invalid(`${field}[${i}]`, s, "must be the name of a request in the claim"));
    } else if (seen.has(s)) errs.push(duplicate(`${field}[${i}]`, s));
    seen.add(s);
  }
  return errs;
}

/** validateDeviceRequest (defaults applied: allocationMode and count). */
function validateRequest(f: string, r: Record<string, unknown>): FieldError[] {
  const errs = named(`${f}.name`, r.name, isDNS1123Label);
  errs.push(...named(`${f}.deviceClassName`, r.deviceClassName, isDNS1123Subdomain));
  errs.push(...validateSelectors(`${f}.selectors`, r.selectors));
  const mode = r.allocationMode, count = typeof r.count === "number" ? r.count : 0;
  if (mode === "All") {
    if (count !== 0) {
      errs.push(invalid(`${f}.count`, count, "must not be specified when allocationMode is 'All'"));
    }
  } else if (mode === "ExactCount") {
    if (count <= 0) errs.push(invalid(`${f}.count`, count, "must be greater than zero"));
  } else errs.push(notSupported(`${f}.allocationMode`, mode ?? "", ALLOCATION_MODES));
  return errs;
}

/** validateDeviceClaim: `spec.devices` of a claim (at `field`). */
export function validateDeviceClaim(field: string, devices: unknown): FieldError[] {
  const d = objectOf(devices), names = new Set<string>();
  const errs = eachOf(`${field}.requests`, d.requests, (f, r) => {
    const name = str(r.name), out = validateRequest(f, r);
    if (name !== "" && names.has(name)) out.push(duplicate(`${f}.name`, name));
    names.add(name);
    return out;
  });
  errs.push(...eachOf(`${field}.constraints`, d.constraints, (f, c) => {
    const out = validateRequestRefs(`${f}.requests`, c.requests, names);
    const attr = str(c.matchAttribute);
    if (c.matchAttribute === undefined || c.matchAttribute === null) {
      out.push(required(`${f}.matchAttribute`));
    } else out.push(...validateFullyQualifiedName(`${f}.matchAttribute`, attr));
    return out;
  }));
  errs.push(...validateConfigs(`${field}.config`, d.config, names));
  return errs;
}

/** validateFullyQualifiedName: `<domain>/<id>` with a DNS subdomain and a C identifier. */
export function validateFullyQualifiedName(field: string, name: string): FieldError[] {
  const slash = name.indexOf("/");
  if (slash < 0) return [required(field, "must include a domain")];
  const errs = isDNS1123Subdomain(name.slice(0, slash)).map((m) => invalid(field, name, m));
  const id = name.slice(slash + 1);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(id)) {
    errs.push(
      invalid(
        field,
        id,
        "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
      ),
    );
  }
  if (id.length > 32) errs.push(invalid(field, id, "must be no more than 32 bytes"));
  return errs;
}

/** An attribute or capacity name: a C identifier, optionally qualified by a domain. */
export function validateQualifiedDeviceName(field: string, name: string): FieldError[] {
  return name.includes("/")
    ? validateFullyQualifiedName(field, name)
    : isQualifiedName(name).map((m) => invalid(field, name, m));
}

/** SetDefaults_DeviceRequest of every request in `devices`. */
export function defaultRequests(devices: unknown): void {
  for (const r of listOf(objectOf(devices).requests)) {
    r.allocationMode ??= "ExactCount";
    if (r.allocationMode === "ExactCount" && (r.count === undefined || r.count === 0)) {
      r.count = 1;
    }
  }
}
