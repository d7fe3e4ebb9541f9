/**
 * CSINode (storage.k8s.io/v1): the CSI drivers installed on a node (named after the node).
 * Validation and kubectl's columns as kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { duplicate, invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import { validateCSIDriverName, validateQualifiedName } from "../storage_validation.ts";

/** The longest nodeID (kube's csiNodeIDMaxLength; 256 with the long-ID option). */
const NODE_ID_MAX = 192;

const CSI_NODE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "Drivers",
      "integer",
      "Drivers indicates the number of CSI drivers registered on the node",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    listOf(objectOf(o.spec).drivers).length,
    ageOf(o, now),
  ],
};

function validateDriver(
  f: string,
  d: Record<string, unknown>,
  names: Set<string>,
): FieldError[] {
  const errs = validateCSIDriverName(`${f}.name`, d.name);
  const nodeID = typeof d.nodeID === "string" ? d.nodeID : "";
  if (nodeID === "") errs.push(required(`${f}.nodeID`));
  if (nodeID.length > NODE_ID_MAX) {
    errs.push(invalid(`${f}.nodeID`, nodeID, `must be ${NODE_ID_MAX} characters or less`));
  }
  const count = objectOf(d.allocatable).count;
  if (typeof count === "number" && count < 0) {
    errs.push(invalid(`${f}.allocatable.count`, count, "must be greater than or equal to 0"));
  }
  const name = String(d.name ?? "");
  if (names.has(name)) errs.push(duplicate(`${f}.name`, name));
  names.add(name);
  const keys = new Set<string>();
  for (const key of Array.isArray(d.topologyKeys) ? d.topologyKeys.map(String) : []) {
    if (key.length === 0) errs.push(required(f));
    if (keys.has(key)) errs.push(duplicate(f, key));
    keys.add(key);
    errs.push(...validateQualifiedName(f, key));
  }
  return errs;
}

/** ValidateCSINode. */
function validate(o: KubeObject): FieldError[] {
  const names = new Set<string>();
  return listOf(objectOf(o.spec).drivers).flatMap((d, i) =>
    validateDriver(`spec.drivers[${i}]`, d, names)
  );
}

/** ValidateCSINodeUpdate: an existing driver entry may not change. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validate(o);
  const next = listOf(objectOf(o.spec).drivers);
  for (const before of listOf(objectOf(old.spec).drivers)) {
    for (const after of next.filter((d) => d.name === before.name)) {
      if (!deepEqual(after, before)) {
        errs.push(invalid("spec.drivers", after, "field is immutable"));
      }
    }
  }
  return errs;
}

/** The CSINode kind. */
export const csiNodeKind: KindDef = {
  group: "storage.k8s.io",
  version: "v1",
  kind: "CSINode",
  plural: "csinodes",
  singular: "csinode",
  namespaced: false,
  returnDeletedObject: true,
  strategy: { tableColumns: CSI_NODE_COLUMNS, validate, validateUpdate },
};
