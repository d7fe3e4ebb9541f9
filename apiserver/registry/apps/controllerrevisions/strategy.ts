/** ControllerRevision (apps/v1): an immutable snapshot of a controller's state. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { required } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, listOf, NAME_COLUMN } from "../../generic/table_columns.ts";
import { immutable, nonNegative } from "../workload.ts";

/** `<kind>.<group>/<name>` of the controller owner, as kubectl's formatResourceName. */
function controllerOf(o: KubeObject): string {
  const ref = listOf(o.metadata?.ownerReferences).find((r) => r.controller === true);
  if (!ref) return "<none>";
  const apiVersion = String(ref.apiVersion ?? "");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = String(ref.kind ?? "");
  const groupKind = group ? `${kind}.${group}` : kind;
  return groupKind ? `${groupKind.toLowerCase()}/${ref.name}` : String(ref.name ?? "");
}

/** ControllerRevision: Name, Controller, Revision, Age. */
const CONTROLLER_REVISION_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Controller", "string", "Controller of the object"),
    column(
      "Revision",
      "string",
      "Revision indicates the revision of the state represented by Data.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    controllerOf(o),
    typeof o.revision === "number" ? o.revision : 0,
    ageOf(o, now),
  ],
};

function validate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.data === undefined || obj.data === null) errs.push(required("data", "data is mandatory"));
  errs.push(...nonNegative("revision", obj.revision ?? 0));
  return errs;
}

/** The ControllerRevision kind. */
export const controllerRevisionKind: KindDef = {
  group: "apps",
  version: "v1",
  kind: "ControllerRevision",
  plural: "controllerrevisions",
  singular: "controllerrevision",
  namespaced: true,
  strategy: {
    tableColumns: CONTROLLER_REVISION_COLUMNS,
    validate,
    validateUpdate: (obj, old) => [...validate(obj), ...immutable("data", obj.data, old.data)],
  },
};
