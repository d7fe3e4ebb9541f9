/**
 * PersistentVolumeClaim: a request for storage, with a status subresource. Defaults (volumeMode
 * Filesystem, phase Pending), the main validation and kubectl's columns as kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  forbidden,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";
import { validateResourceList } from "../resource_list.ts";
import { accessModesText, validateAccessModes } from "../persistentvolumes/access_modes.ts";

const VOLUME_MODES = ["Block", "Filesystem"];

function validate(o: KubeObject): FieldError[] {
  if (!isObject(o.spec)) return [required("spec")];
  const spec = o.spec;
  const errs = validateAccessModes("spec.accessModes", spec.accessModes);
  const requests = obj(obj(spec.resources).requests);
  if (requests.storage === undefined) errs.push(required("spec.resources[storage]"));
  errs.push(
    ...validateResourceList("spec.resources.requests", obj(spec.resources).requests),
    ...validateResourceList("spec.resources.limits", obj(spec.resources).limits),
  );
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(String(spec.volumeMode))) {
    errs.push(notSupported("spec.volumeMode", spec.volumeMode, VOLUME_MODES));
  }
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validate(o);
  const a = { ...obj(o.spec) }, b = { ...obj(old.spec) };
  // Only the requested size (and a volume name set once) may change.
  for (const s of [a, b]) delete s.resources;
  if (!b.volumeName) delete a.volumeName, delete b.volumeName;
  if (JSON.stringify(a, Object.keys(a).sort()) !== JSON.stringify(b, Object.keys(b).sort())) {
    errs.push(
      forbidden(
        "spec",
        "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
      ),
    );
  }
  return errs;
}

function defaults(o: KubeObject): void {
  if (isObject(o.spec)) o.spec.volumeMode ??= "Filesystem";
}

const PVC_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "string", "The phase of the claim."),
    col("Volume", "string", "The volume bound to the claim."),
    col("Capacity", "string", "The capacity of the bound volume."),
    col("Access Modes", "string", "The access modes of the bound volume."),
    col("StorageClass", "string", "The storage class the claim asks for."),
    col("VolumeAttributesClass", "string", "The volume attributes class of the claim."),
    AGE_COLUMN,
    col("VolumeMode", "string", "Whether the volume is a filesystem or a raw block device.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec), st = obj(o.status);
    const bound = !!spec.volumeName;
    const phase = o.metadata?.deletionTimestamp ? "Terminating" : String(st.phase ?? "");
    return [
      o.metadata?.name ?? "",
      phase,
      String(spec.volumeName ?? ""),
      bound ? String(obj(st.capacity).storage ?? "") : "",
      bound ? accessModesText(st.accessModes) : "",
      String(
        spec.storageClassName ??
          o.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? "",
      ),
      String(spec.volumeAttributesClassName || "<unset>"),
      age(o, now),
      String(spec.volumeMode || "<unset>"),
    ];
  },
};

/** The PersistentVolumeClaim kind. */
export const persistentVolumeClaimKind: KindDef = {
  group: "",
  version: "v1",
  kind: "PersistentVolumeClaim",
  plural: "persistentvolumeclaims",
  singular: "persistentvolumeclaim",
  shortNames: ["pvc"],
  namespaced: true,
  returnDeletedObject: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: PVC_COLUMNS,
    prepareForCreate(o) {
      defaults(o);
      o.status = { phase: "Pending" };
    },
    prepareForUpdate: defaults,
    validate,
    validateUpdate,
  },
};
