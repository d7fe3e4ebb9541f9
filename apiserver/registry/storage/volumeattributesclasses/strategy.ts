/**
 * VolumeAttributesClass (storage.k8s.io/v1beta1, stored there as kube 1.32 stores it, and
 * v1alpha1 served from it; both off by default): a CSI driver's mutable volume attributes.
 * Validation and columns as kube-apiserver's; the driver and parameters never change.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { forbidden, required } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { sameFieldsVersion } from "../../generic/same_fields_version.ts";
import { validateQualifiedName } from "../storage_validation.ts";
import { validateParameters } from "../storageclasses/strategy.ts";

/** VolumeAttributesClass: Name, DriverName, Age. */
const COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("DriverName", "string", "`DriverName` is the name of the CSI driver"),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", String(o.driverName ?? ""), ageOf(o, now)],
};

/** ValidateVolumeAttributesClass. */
function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const driver = typeof o.driverName === "string" ? o.driverName : "";
  if (driver === "") errs.push(required("driverName"));
  else errs.push(...validateQualifiedName("driverName", driver.toLowerCase()));
  if (!isObject(o.parameters) || Object.keys(o.parameters).length === 0) {
    errs.push(required("parameters", "must contain at least one key/value pair"));
  } else errs.push(...validateParameters(o.parameters));
  return errs;
}

/** ValidateVolumeAttributesClassUpdate. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.driverName !== old.driverName) {
    errs.push(forbidden("driverName", "updates to driverName are forbidden."));
  }
  if (!deepEqual(o.parameters ?? {}, old.parameters ?? {})) {
    errs.push(forbidden("parameters", "updates to parameters are forbidden."));
  }
  return errs;
}

/** storage.k8s.io/v1beta1 VolumeAttributesClass, the stored version. */
export const volumeAttributesClassKind: KindDef = {
  group: "storage.k8s.io",
  version: "v1beta1",
  kind: "VolumeAttributesClass",
  plural: "volumeattributesclasses",
  singular: "volumeattributesclass",
  shortNames: ["vac"],
  namespaced: false,
  strategy: { tableColumns: COLUMNS, validate, validateUpdate },
};

/**
 * storage.k8s.io/v1alpha1 VolumeAttributesClass (the same fields; stored as v1beta1), with
 * kube 1.32's deprecation warning (deprecated in 1.32, removed in 1.35).
 */
export const volumeAttributesClassV1alpha1Kind: KindDef = {
  ...sameFieldsVersion(volumeAttributesClassKind, "v1alpha1"),
  deprecationWarning:
    "storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, unavailable in v1.35+",
  removedRelease: "1.35",
};
