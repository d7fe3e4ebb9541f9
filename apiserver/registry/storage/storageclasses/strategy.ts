/**
 * StorageClass (storage.k8s.io/v1): a class of dynamically provisioned storage. Defaults
 * (reclaimPolicy Delete, volumeBindingMode Immediate), validation and kubectl's columns as
 * kube-apiserver's; the default class is marked "(default)" in the name column.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
  tooLong,
} from "../../../../shared/api/validation/field_errors.ts";
import { byteLength } from "../../../../shared/api/validation/go_quote.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { validateAllowedTopologies, validateQualifiedName } from "../storage_validation.ts";

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const DEFAULT_ANNOTATIONS = [
  "storageclass.kubernetes.io/is-default-class",
  "storageclass.beta.kubernetes.io/is-default-class",
];

/** Whether a StorageClass is annotated as the default one (IsDefaultAnnotation). */
export function isDefaultClass(o: KubeObject): boolean {
  const a = o.metadata?.annotations ?? {};
  return DEFAULT_ANNOTATIONS.some((k) => a[k] === "true");
}

const STORAGE_CLASS_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Provisioner", "string", "provisioner indicates the type of the provisioner."),
    column(
      "ReclaimPolicy",
      "string",
      "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
    ),
    column(
      "VolumeBindingMode",
      "string",
      "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
    ),
    column(
      "AllowVolumeExpansion",
      "string",
      "allowVolumeExpansion shows whether the storage class allow volume expand.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    `${o.metadata?.name ?? ""}${isDefaultClass(o) ? " (default)" : ""}`,
    String(o.provisioner ?? ""),
    String(o.reclaimPolicy ?? "Delete"),
    String(o.volumeBindingMode ?? "Immediate"),
    o.allowVolumeExpansion === true,
    ageOf(o, now),
  ],
};

/** SetDefaults_StorageClass. */
function setDefaults(o: KubeObject): void {
  o.reclaimPolicy ??= "Delete";
  o.volumeBindingMode ??= "Immediate";
}

/** validateParameters: at most 512 keys, none empty, 256 KiB in all. */
export function validateParameters(params: unknown): FieldError[] {
  if (!isObject(params)) return [];
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) {
    return [tooLong("parameters", undefined, `may not be more than ${MAX_PARAMETERS} bytes`)];
  }
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length === 0) errs.push(invalid("parameters", k, "field can not be empty."));
    size += byteLength(k) + byteLength(String(v));
  }
  if (size > MAX_PARAMETERS_SIZE) {
    errs.push(
      tooLong("parameters", undefined, `may not be more than ${MAX_PARAMETERS_SIZE} bytes`),
    );
  }
  return errs;
}

/** ValidateStorageClass. */
function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = typeof o.provisioner === "string" ? o.provisioner : "";
  if (provisioner === "") errs.push(required("provisioner"));
  else errs.push(...validateQualifiedName("provisioner", provisioner.toLowerCase()));
  errs.push(...validateParameters(o.parameters));
  const reclaim = o.reclaimPolicy;
  if (reclaim !== undefined && reclaim !== "" && reclaim !== "Delete" && reclaim !== "Retain") {
    errs.push(notSupported("reclaimPolicy", reclaim, ["Delete", "Retain"]));
  }
  const mode = o.volumeBindingMode;
  if (mode === undefined) errs.push(required("volumeBindingMode"));
  else if (mode !== "Immediate" && mode !== "WaitForFirstConsumer") {
    errs.push(notSupported("volumeBindingMode", mode, ["Immediate", "WaitForFirstConsumer"]));
  }
  errs.push(...validateAllowedTopologies("allowedTopologies", o.allowedTopologies));
  return errs;
}

/** ValidateStorageClassUpdate (after ValidateStorageClass). */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validate(o);
  if (!deepEqual(o.parameters ?? {}, old.parameters ?? {})) {
    errs.push(forbidden("parameters", "updates to parameters are forbidden."));
  }
  if (o.provisioner !== old.provisioner) {
    errs.push(forbidden("provisioner", "updates to provisioner are forbidden."));
  }
  if (o.reclaimPolicy !== old.reclaimPolicy) {
    errs.push(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  }
  if (o.volumeBindingMode !== old.volumeBindingMode) {
    errs.push(invalid("volumeBindingMode", o.volumeBindingMode ?? null, "field is immutable"));
  }
  return errs;
}

/** The StorageClass kind. */
export const storageClassKind: KindDef = {
  group: "storage.k8s.io",
  version: "v1",
  kind: "StorageClass",
  plural: "storageclasses",
  singular: "storageclass",
  shortNames: ["sc"],
  namespaced: false,
  returnDeletedObject: true,
  strategy: {
    tableColumns: STORAGE_CLASS_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate,
    validateUpdate,
  },
};
