/**
 * ResourceQuota: per-namespace limits on aggregate resource use, with a status subresource
 * (hard and used). Columns Name, Age, Request, Limit as kubectl prints them.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { notSupported } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";
import { validateResourceList } from "../resource_list.ts";

const SCOPES = [
  "BestEffort",
  "CrossNamespacePodAffinity",
  "NotBestEffort",
  "NotTerminating",
  "PriorityClass",
  "Terminating",
];

function validate(o: KubeObject): FieldError[] {
  const spec = obj(o.spec), status = obj(o.status);
  const errs = [
    ...validateResourceList("spec.hard", spec.hard),
    ...validateResourceList("status.hard", status.hard),
    ...validateResourceList("status.used", status.used),
  ];
  const scopes = Array.isArray(spec.scopes) ? spec.scopes : [];
  for (const [i, s] of scopes.entries()) {
    if (!SCOPES.includes(String(s))) errs.push(notSupported(`spec.scopes[${i}]`, s, SCOPES));
  }
  return errs;
}

/** `resource: used/hard, ...` for the requests (or, with `limits`, the `limits.*` resources). */
function usage(o: KubeObject, limits: boolean): string {
  const hard = obj(obj(o.spec).hard), st = obj(o.status);
  const used = obj(st.used), statusHard = obj(st.hard);
  return Object.keys(hard).sort()
    .filter((r) => (r.split(".").length > 1 && r.split(".")[0] === "limits") === limits)
    .map((r) => `${r}: ${used[r] ?? "0"}/${statusHard[r] ?? "0"}`).join(", ");
}

const QUOTA_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    col(
      "Request",
      "string",
      "Request represents a minimum amount of cpu/memory that a container may consume.",
    ),
    col(
      "Limit",
      "string",
      "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
    ),
  ],
  cells: (o, now) => [o.metadata?.name ?? "", age(o, now), usage(o, false), usage(o, true)],
};

/** The ResourceQuota kind. */
export const resourceQuotaKind: KindDef = {
  group: "",
  version: "v1",
  kind: "ResourceQuota",
  plural: "resourcequotas",
  singular: "resourcequota",
  shortNames: ["quota"],
  namespaced: true,
  returnDeletedObject: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: QUOTA_COLUMNS,
    prepareForCreate(o) {
      o.status = {};
      if (!isObject(o.spec)) o.spec = {};
    },
    validate,
  },
};
