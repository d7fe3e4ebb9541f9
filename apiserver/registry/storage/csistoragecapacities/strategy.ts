/**
 * CSIStorageCapacity (storage.k8s.io/v1, namespaced): the capacity a CSI driver reports for a
 * storage class in a topology segment. Validation and kubectl's columns as kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { isDNS1123Subdomain } from "../../../../shared/api/validation/identifiers.ts";
import { labelSelectorFromObject } from "../../../../shared/selectors/label_selector.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { validateResourceList } from "../../core/resource_list.ts";

const CSI_STORAGE_CAPACITY_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "StorageClassName",
      "string",
      "storageClassName represents the name of the StorageClass that the reported capacity applies to.",
    ),
    column(
      "Capacity",
      "string",
      "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.",
    ),
  ],
  cells: (o) => [
    o.metadata?.name ?? "",
    String(o.storageClassName ?? ""),
    o.capacity === undefined ? "<unset>" : String(o.capacity),
  ],
};

/** ValidateCSIStorageCapacity. */
function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isObject(o.nodeTopology)) {
    try {
      labelSelectorFromObject(o.nodeTopology);
    } catch (err) {
      errs.push(invalid("nodeTopology", o.nodeTopology, (err as Error).message));
    }
  }
  const className = typeof o.storageClassName === "string" ? o.storageClassName : "";
  for (const msg of isDNS1123Subdomain(className)) {
    errs.push(invalid("storageClassName", className, msg));
  }
  for (const f of ["capacity", "maximumVolumeSize"]) {
    if (o[f] !== undefined) {
      errs.push(
        ...validateResourceList("", { [f]: o[f] }).map((e) => ({ ...e, field: f })),
      );
    }
  }
  return errs;
}

/** ValidateCSIStorageCapacityUpdate: nodeTopology and storageClassName are immutable. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validate(o);
  if (!deepEqual(o.nodeTopology ?? null, old.nodeTopology ?? null)) {
    errs.push(invalid("nodeTopology", o.nodeTopology ?? null, "field is immutable"));
  }
  if (o.storageClassName !== old.storageClassName) {
    errs.push(invalid("storageClassName", o.storageClassName ?? "", "field is immutable"));
  }
  return errs;
}

/** The CSIStorageCapacity kind. */
export const csiStorageCapacityKind: KindDef = {
  group: "storage.k8s.io",
  version: "v1",
  kind: "CSIStorageCapacity",
  plural: "csistoragecapacities",
  singular: "csistoragecapacity",
  namespaced: true,
  strategy: { tableColumns: CSI_STORAGE_CAPACITY_COLUMNS, validate, validateUpdate },
};
