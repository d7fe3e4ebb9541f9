/**
 * PersistentVolume: a piece of storage in the cluster, with a status subresource. Defaults
 * (reclaim policy Retain, volumeMode Filesystem, phase Pending), the main validation and
 * kubectl's columns as kube-apiserver's.
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
import { accessModesText, validateAccessModes } from "./access_modes.ts";

const RECLAIM = ["Delete", "Recycle", "Retain"];
const VOLUME_MODES = ["Block", "Filesystem"];
/** Spec fields that are not a volume source. */
const NOT_SOURCES = new Set([
  "capacity",
  "accessModes",
  "claimRef",
  "persistentVolumeReclaimPolicy",
  "storageClassName",
  "mountOptions",
  "volumeMode",
  "nodeAffinity",
  "volumeAttributesClassName",
]);

function validate(o: KubeObject): FieldError[] {
  if (!isObject(o.spec)) return [required("spec")];
  const spec = o.spec;
  const errs = validateAccessModes("spec.accessModes", spec.accessModes);
  if (obj(spec.capacity).storage === undefined) errs.push(required("spec.capacity[storage]"));
  errs.push(...validateResourceList("spec.capacity", spec.capacity));
  const sources = Object.keys(spec).filter((k) => !NOT_SOURCES.has(k) && isObject(spec[k]));
  if (sources.length === 0) errs.push(required("spec", "must specify a volume type"));
  else if (sources.length > 1) {
    errs.push(forbidden(`spec.${sources[1]}`, "may not specify more than 1 volume type"));
  }
  const r = spec.persistentVolumeReclaimPolicy;
  if (!RECLAIM.includes(String(r))) {
    errs.push(notSupported("spec.persistentVolumeReclaimPolicy", r, RECLAIM));
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(String(spec.volumeMode))) {
    errs.push(notSupported("spec.volumeMode", spec.volumeMode, VOLUME_MODES));
  }
  return errs;
}

function defaults(o: KubeObject): void {
  if (!isObject(o.spec)) return;
  o.spec.persistentVolumeReclaimPolicy ??= "Retain";
  o.spec.volumeMode ??= "Filesystem";
}

const PV_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Capacity", "string", "The capacity of the volume."),
    col("Access Modes", "string", "The ways the volume can be mounted."),
    col("Reclaim Policy", "string", "What happens to the volume when its claim is released."),
    col("Status", "string", "The phase of the volume."),
    col("Claim", "string", "The claim bound to the volume."),
    col("StorageClass", "string", "The storage class of the volume."),
    col("VolumeAttributesClass", "string", "The volume attributes class of the volume."),
    col("Reason", "string", "Why the volume is in its phase."),
    AGE_COLUMN,
    col("VolumeMode", "string", "Whether the volume is a filesystem or a raw block device.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec), st = obj(o.status), claim = obj(spec.claimRef);
    const phase = o.metadata?.deletionTimestamp ? "Terminating" : String(st.phase ?? "");
    return [
      o.metadata?.name ?? "",
      String(obj(spec.capacity).storage ?? ""),
      accessModesText(spec.accessModes),
      String(spec.persistentVolumeReclaimPolicy ?? ""),
      phase,
      claim.name ? `${claim.namespace ?? ""}/${claim.name}` : "",
      String(
        spec.storageClassName ??
          o.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? "",
      ),
      String(spec.volumeAttributesClassName || "<unset>"),
      String(st.reason ?? ""),
      age(o, now),
      String(spec.volumeMode || "<unset>"),
    ];
  },
};

/** The PersistentVolume kind. */
export const persistentVolumeKind: KindDef = {
  group: "",
  version: "v1",
  kind: "PersistentVolume",
  plural: "persistentvolumes",
  singular: "persistentvolume",
  shortNames: ["pv"],
  namespaced: false,
  returnDeletedObject: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: PV_COLUMNS,
    prepareForCreate(o) {
      defaults(o);
      const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      o.status = { phase: "Pending", lastPhaseTransitionTime: now };
    },
    prepareForUpdate: defaults,
    validate,
  },
};
