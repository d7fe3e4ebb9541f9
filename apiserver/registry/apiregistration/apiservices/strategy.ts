/**
 * APIService (apiregistration.k8s.io/v1), cluster-scoped, with a status subresource: which
 * server serves a group version (a Service, or none for the groups served here). Defaults,
 * validation and kubectl's columns as kube-aggregator's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { nameIsPathSegment } from "../../../../shared/api/validation/name_validators.ts";
import {
  isDNS1035Label,
  isDNS1123Subdomain,
} from "../../../../shared/api/validation/identifiers.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";

/** The `Available` condition of an APIService, if any. */
export function availableCondition(o: KubeObject): Record<string, unknown> | undefined {
  return listOf(objectOf(o.status).conditions).find((c) => c.type === "Available");
}

/** The AVAILABLE cell: `True`, `False (Reason)`, or `Unknown` without the condition. */
function availableCell(o: KubeObject): string {
  const c = availableCondition(o);
  if (!c) return "Unknown";
  const status = String(c.status ?? "");
  if (status === "True" || !c.reason) return status;
  return `${status} (${c.reason})`;
}

const API_SERVICE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Service", "string", "The reference to the service that hosts this API endpoint."),
    column("Available", "string", "Whether this service is available."),
    AGE_COLUMN,
  ],
  cells: (o, now) => {
    const svc = objectOf(o.spec).service;
    return [
      o.metadata?.name ?? "",
      isObject(svc) ? `${svc.namespace ?? ""}/${svc.name ?? ""}` : "Local",
      availableCell(o),
      ageOf(o, now),
    ];
  },
};

/** SetDefaults_ServiceReference: port 443. */
function setDefaults(o: KubeObject): void {
  const spec = objectOf(o.spec);
  if (isObject(spec.service)) spec.service.port ??= 443;
}

/** The decoded length of a base64 caBundle. */
function bundleBytes(caBundle: unknown): number {
  if (typeof caBundle !== "string" || caBundle === "") return 0;
  const pad = caBundle.endsWith("==") ? 2 : caBundle.endsWith("=") ? 1 : 0;
  return Math.floor(caBundle.length * 3 / 4) - pad;
}

/** ValidateAPIService's spec rules. */
function validateSpec(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const group = String(spec.group ?? ""), version = String(spec.version ?? "");
  if (group === "" && version !== "v1") {
    errs.push(
      required("spec.group", "only v1 may have an empty group and it better be legacy kube"),
    );
  }
  if (group !== "") {
    for (const e of isDNS1123Subdomain(group)) errs.push(invalid("spec.group", group, e));
  }
  for (const e of isDNS1035Label(version)) errs.push(invalid("spec.version", version, e));
  const gpm = Number(spec.groupPriorityMinimum ?? 0), vp = Number(spec.versionPriority ?? 0);
  if (gpm <= 0 || gpm > 20000) {
    errs.push(invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000"));
  }
  if (vp <= 0 || vp > 1000) {
    errs.push(invalid("spec.versionPriority", vp, "must be positive and less than 1000"));
  }
  return [...errs, ...validateService(spec)];
}

/** The service rules: none for a local APIService, a complete reference otherwise. */
function validateService(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const bytes = bundleBytes(spec.caBundle), skip = spec.insecureSkipTLSVerify === true;
  const svc = spec.service;
  if (!isObject(svc)) {
    if (bytes !== 0) {
      errs.push(
        invalid("spec.caBundle", `${bytes} bytes`, "local APIServices may not have a caBundle"),
      );
    }
    if (skip) {
      errs.push(
        invalid(
          "spec.insecureSkipTLSVerify",
          true,
          "local APIServices may not have insecureSkipTLSVerify",
        ),
      );
    }
    return errs;
  }
  if (!svc.namespace) errs.push(required("spec.service.namespace"));
  if (!svc.name) errs.push(required("spec.service.name"));
  const port = Number(svc.port ?? 0);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    errs.push(
      invalid(
        "spec.service.port",
        port,
        "port is not valid: must be between 1 and 65535, inclusive",
      ),
    );
  }
  if (skip && bytes > 0) {
    errs.push(
      invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"),
    );
  }
  return errs;
}

/** ValidateAPIService: the name must be `<version>.<group>`, then the spec rules. */
export function validateAPIService(o: KubeObject): FieldError[] {
  const spec = objectOf(o.spec);
  const name = o.metadata?.name ?? "";
  const requiredName = `${spec.version ?? ""}.${spec.group ?? ""}`;
  const errs: FieldError[] = [];
  if (name !== "" && nameIsPathSegment(name, false).length === 0 && name !== requiredName) {
    errs.push(
      invalid("metadata.name", name, `must be \`spec.version+"."+spec.group\`: "${requiredName}"`),
    );
  }
  return [...errs, ...validateSpec(spec)];
}

const CONDITION_STATUSES = ["True", "False", "Unknown"];

/** ValidateAPIServiceStatus: each condition's status is True, False or Unknown. */
export function validateAPIServiceStatus(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  listOf(objectOf(o.status).conditions).forEach((c, i) => {
    if (!CONDITION_STATUSES.includes(String(c.status))) {
      errs.push(notSupported(`status.conditions[${i}].status`, c.status, CONDITION_STATUSES));
    }
  });
  return errs;
}

/** The APIService kind. */
export const apiServiceKind: KindDef = {
  group: "apiregistration.k8s.io",
  version: "v1",
  kind: "APIService",
  plural: "apiservices",
  singular: "apiservice",
  categories: ["api-extensions"],
  namespaced: false,
  nameValidator: nameIsPathSegment,
  subresources: [{ ...STATUS_SUBRESOURCE, validateUpdate: validateAPIServiceStatus }],
  strategy: {
    tableColumns: API_SERVICE_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      obj.status = {};
    },
    prepareForUpdate: setDefaults,
    validate: validateAPIService,
  },
};
