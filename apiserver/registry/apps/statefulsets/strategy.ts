/** StatefulSet (apps/v1): pods with stable identities and storage. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { defaultPodTemplate, validatePodTemplate } from "../pod_template.ts";
import { SCALE_SUBRESOURCE } from "../scale.ts";
import {
  containerCells,
  count,
  intOrPercent,
  intOrPercentValue,
  nonNegative,
  notOver100,
  specOf,
  statusOf,
  TEMPLATE_COLUMNS,
  validateAlwaysRestart,
  validateReplicaStatus,
  validateSelector,
} from "../workload.ts";

/** StatefulSet: Name, Ready, Age; wide: Containers, Images. */
const STATEFULSET_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "Number of the pod with ready state"),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
  ],
  cells(o, now) {
    const spec = specOf(o), status = statusOf(o);
    return [
      o.metadata?.name ?? "",
      `${count(status.readyReplicas)}/${count(spec.replicas)}`,
      ageOf(o, now),
      ...containerCells(spec.template),
    ];
  },
};

/** SetDefaults_StatefulSet, and the pod and claim templates' defaults. */
function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  spec.podManagementPolicy ??= "OrderedReady";
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const us = spec.updateStrategy as Record<string, unknown>;
  if (us.type === undefined) {
    us.type = "RollingUpdate";
    us.rollingUpdate ??= {};
  }
  if (us.type === "RollingUpdate" && isObject(us.rollingUpdate)) us.rollingUpdate.partition ??= 0;
  if (!isObject(spec.persistentVolumeClaimRetentionPolicy)) {
    spec.persistentVolumeClaimRetentionPolicy = {};
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy as Record<string, unknown>;
  retention.whenDeleted ??= "Retain";
  retention.whenScaled ??= "Retain";
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplate(spec.template);
  if (Array.isArray(spec.volumeClaimTemplates)) {
    for (const pvc of spec.volumeClaimTemplates) {
      if (!isObject(pvc)) continue;
      if (isObject(pvc.spec)) pvc.spec.volumeMode ??= "Filesystem";
      pvc.status ??= { phase: "Pending" };
    }
  }
}

function validateUpdateStrategy(us: Record<string, unknown>): FieldError[] {
  const f = "spec.updateStrategy";
  switch (us.type) {
    case undefined:
    case "":
      return [required(f)];
    case "OnDelete":
      return us.rollingUpdate === undefined || us.rollingUpdate === null ? [] : [
        invalid(
          `${f}.rollingUpdate`,
          us.rollingUpdate,
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      ];
    case "RollingUpdate": {
      if (!isObject(us.rollingUpdate)) return [];
      const ru = us.rollingUpdate;
      const errs = nonNegative(`${f}.rollingUpdate.partition`, ru.partition);
      if (ru.maxUnavailable !== undefined && ru.maxUnavailable !== null) {
        const mf = `${f}.rollingUpdate.maxUnavailable`;
        errs.push(...intOrPercent(mf, ru.maxUnavailable));
        if (intOrPercentValue(ru.maxUnavailable) === 0) {
          errs.push(invalid(mf, ru.maxUnavailable, "cannot be 0"));
        }
        errs.push(...notOver100(mf, ru.maxUnavailable));
      }
      return errs;
    }
    default:
      return [invalid(f, us, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

/** ValidateStatefulSetSpec. */
function validateSpec(obj: KubeObject): FieldError[] {
  if (!isObject(obj.spec)) return [required("spec.selector")];
  const spec = obj.spec;
  const errs: FieldError[] = [];
  const pmp = spec.podManagementPolicy;
  if (pmp === undefined || pmp === "") errs.push(required("spec.podManagementPolicy"));
  else if (pmp !== "OrderedReady" && pmp !== "Parallel") {
    errs.push(invalid("spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"));
  }
  errs.push(...validateUpdateStrategy(isObject(spec.updateStrategy) ? spec.updateStrategy : {}));
  const retention = isObject(spec.persistentVolumeClaimRetentionPolicy)
    ? spec.persistentVolumeClaimRetentionPolicy
    : undefined;
  for (const k of ["whenDeleted", "whenScaled"]) {
    if (retention && !["Retain", "Delete"].includes(String(retention[k]))) {
      errs.push(
        notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, retention[k], [
          "Retain",
          "Delete",
        ]),
      );
    }
  }
  errs.push(...nonNegative("spec.replicas", spec.replicas));
  errs.push(...nonNegative("spec.minReadySeconds", spec.minReadySeconds));
  if (isObject(spec.ordinals)) {
    errs.push(...nonNegative("spec.ordinals.start", spec.ordinals.start));
  }
  errs.push(...validateSelector(spec, "statefulset"));
  errs.push(...validatePodTemplate("spec.template", spec.template));
  errs.push(...validateAlwaysRestart(spec.template, "StatefulSet"));
  return errs;
}

const MUTABLE_SPEC = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
];

/** ValidateStatefulSetUpdate: only some spec fields may change. */
function validateSpecUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const strip = (spec: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(spec).filter(([k]) => !MUTABLE_SPEC.includes(k)));
  if (deepEqual(strip(specOf(obj)), strip(specOf(old)))) return [];
  return [
    forbidden(
      "spec",
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** The StatefulSet kind. */
export const statefulSetKind: KindDef = {
  group: "apps",
  version: "v1",
  kind: "StatefulSet",
  plural: "statefulsets",
  singular: "statefulset",
  shortNames: ["sts"],
  categories: ["all"],
  namespaced: true,
  nameIsLabel: true,
  subresources: [STATUS_SUBRESOURCE, SCALE_SUBRESOURCE],
  strategy: {
    tableColumns: STATEFULSET_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      obj.status = { replicas: 0, availableReplicas: 0 };
    },
    prepareForUpdate: setDefaults,
    validate: validateSpec,
    validateUpdate(obj, old) {
      return [
        ...validateSpec(obj),
        ...validateSpecUpdate(obj, old),
        ...validateReplicaStatus(statusOf(obj)),
      ];
    },
  },
};
