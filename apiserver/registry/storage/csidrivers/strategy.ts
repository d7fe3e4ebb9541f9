/**
 * CSIDriver (storage.k8s.io/v1): a CSI volume driver deployed on the cluster. Defaults as
 * Kubernetes 1.32's SetDefaults_CSIDriver, validation and kubectl's columns as kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  duplicate,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";

const FS_GROUP_POLICIES = ["File", "None", "ReadWriteOnceWithFSType"];
const LIFECYCLE_MODES = ["Persistent", "Ephemeral"];

const CSI_DRIVER_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "AttachRequired",
      "boolean",
      "attachRequired indicates this CSI volume driver requires an attach operation.",
    ),
    column(
      "PodInfoOnMount",
      "boolean",
      "podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.",
    ),
    column(
      "StorageCapacity",
      "boolean",
      "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider its storage capacity.",
    ),
    column(
      "TokenRequests",
      "string",
      "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for.",
    ),
    column(
      "RequiresRepublish",
      "boolean",
      "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called.",
    ),
    column(
      "Modes",
      "string",
      "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.",
    ),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = objectOf(o.spec);
    const modes = Array.isArray(spec.volumeLifecycleModes)
      ? spec.volumeLifecycleModes.join(",")
      : "";
    const tokens = Array.isArray(spec.tokenRequests)
      ? listOf(spec.tokenRequests).map((t) => String(t.audience ?? "")).join(",")
      : "<unset>";
    return [
      o.metadata?.name ?? "",
      spec.attachRequired !== false,
      spec.podInfoOnMount === true,
      spec.storageCapacity === true,
      tokens,
      spec.requiresRepublish === true,
      modes || "<none>",
      ageOf(o, now),
    ];
  },
};

/** SetDefaults_CSIDriver (Kubernetes 1.32, SELinuxMountReadWriteOncePod on). */
function setDefaults(o: KubeObject): void {
  if (!isObject(o.spec)) o.spec = {};
  const spec = o.spec as Record<string, unknown>;
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= "ReadWriteOnceWithFSType";
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) {
    spec.volumeLifecycleModes = ["Persistent"];
  }
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

function validateTokenRequests(v: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, t] of listOf(v).entries()) {
    const f = `spec.tokenRequests[${i}]`;
    const audience = String(t.audience ?? "");
    if (seen.has(audience)) {
      errs.push(duplicate(`${f}.audience`, audience));
      continue;
    }
    seen.add(audience);
    const exp = t.expirationSeconds;
    if (typeof exp !== "number") continue;
    if (exp < 600) {
      errs.push(
        invalid(`${f}.expirationSeconds`, exp, "may not specify a duration less than 10 minutes"),
      );
    }
    if (exp > 2 ** 32) {
      errs.push(
        invalid(
          `${f}.expirationSeconds`,
          exp,
          "may not specify a duration larger than 2^32 seconds",
        ),
      );
    }
  }
  return errs;
}

/** validateCSIDriverSpec. */
function validateSpec(o: KubeObject): FieldError[] {
  const spec = objectOf(o.spec);
  const errs: FieldError[] = [];
  // kube's paths say "attachedRequired" here.
  if (spec.attachRequired === undefined) errs.push(required("spec.attachedRequired"));
  if (spec.podInfoOnMount === undefined) errs.push(required("spec.podInfoOnMount"));
  if (spec.storageCapacity === undefined) errs.push(required("spec.storageCapacity"));
  const policy = spec.fsGroupPolicy;
  if (policy !== undefined && !FS_GROUP_POLICIES.includes(String(policy))) {
    errs.push(notSupported("spec.fsGroupPolicy", policy, FS_GROUP_POLICIES));
  }
  errs.push(...validateTokenRequests(spec.tokenRequests));
  for (const mode of Array.isArray(spec.volumeLifecycleModes) ? spec.volumeLifecycleModes : []) {
    if (!LIFECYCLE_MODES.includes(String(mode))) {
      errs.push(notSupported("spec.volumeLifecycleModes", mode, LIFECYCLE_MODES));
    }
  }
  if (spec.seLinuxMount === undefined) errs.push(required("spec.seLinuxMount"));
  return errs;
}

/** ValidateCSIDriverUpdate: attachRequired and volumeLifecycleModes are immutable. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateSpec(o);
  const spec = objectOf(o.spec), oldSpec = objectOf(old.spec);
  if (!deepEqual(spec.attachRequired ?? null, oldSpec.attachRequired ?? null)) {
    errs.push(invalid("spec.attachedRequired", spec.attachRequired ?? null, "field is immutable"));
  }
  if (!deepEqual(spec.volumeLifecycleModes ?? null, oldSpec.volumeLifecycleModes ?? null)) {
    errs.push(
      invalid("spec.volumeLifecycleModes", spec.volumeLifecycleModes ?? null, "field is immutable"),
    );
  }
  return errs;
}

/** The CSIDriver kind. */
export const csiDriverKind: KindDef = {
  group: "storage.k8s.io",
  version: "v1",
  kind: "CSIDriver",
  plural: "csidrivers",
  singular: "csidriver",
  namespaced: false,
  returnDeletedObject: true,
  strategy: {
    tableColumns: CSI_DRIVER_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate: validateSpec,
    validateUpdate,
  },
};
