/** Deployment (apps/v1): declarative updates of ReplicaSets and their pods. */
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
  formatSelector,
  immutable,
  intOrPercent,
  intOrPercentValue,
  nonNegative,
  notOver100,
  selectorColumn,
  specOf,
  statusOf,
  TEMPLATE_COLUMNS,
  validateAlwaysRestart,
  validateReplicaStatus,
  validateSelector,
} from "../workload.ts";

/** Deployment: Name, Ready, Up-to-date, Available, Age; wide: Containers, Images, Selector. */
const DEPLOYMENT_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Ready", "string", "Number of the pod with ready state"),
    column(
      "Up-to-date",
      "string",
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
    ),
    column(
      "Available",
      "string",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    selectorColumn(
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
    ),
  ],
  cells(o, now) {
    const spec = specOf(o), status = statusOf(o);
    return [
      o.metadata?.name ?? "",
      `${count(status.readyReplicas)}/${count(spec.replicas)}`,
      count(status.updatedReplicas),
      count(status.availableReplicas),
      ageOf(o, now),
      ...containerCells(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

/** SetDefaults_Deployment, and the pod template's defaults. */
function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  spec.replicas ??= 1;
  if (!isObject(spec.strategy)) spec.strategy = {};
  const strategy = spec.strategy as Record<string, unknown>;
  strategy.type ??= "RollingUpdate";
  if (strategy.type === "RollingUpdate") {
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    const ru = strategy.rollingUpdate as Record<string, unknown>;
    ru.maxUnavailable ??= "25%";
    ru.maxSurge ??= "25%";
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplate(spec.template);
}

function validateStrategy(strategy: unknown): FieldError[] {
  const s = isObject(strategy) ? strategy : {};
  const f = "spec.strategy";
  if (s.type === "Recreate") {
    return s.rollingUpdate === undefined || s.rollingUpdate === null ? [] : [
      forbidden(`${f}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"),
    ];
  }
  if (s.type !== "RollingUpdate") {
    return [notSupported(f, s, ["Recreate", "RollingUpdate"])];
  }
  if (!isObject(s.rollingUpdate)) {
    return [required(`${f}.rollingUpdate`, "this should be defaulted and never be nil")];
  }
  const ru = s.rollingUpdate;
  const errs = [
    ...intOrPercent(`${f}.rollingUpdate.maxUnavailable`, ru.maxUnavailable),
    ...intOrPercent(`${f}.rollingUpdate.maxSurge`, ru.maxSurge),
  ];
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
    errs.push(
      invalid(
        `${f}.rollingUpdate.maxUnavailable`,
        ru.maxUnavailable,
        "may not be 0 when `maxSurge` is 0",
      ),
    );
  }
  errs.push(...notOver100(`${f}.rollingUpdate.maxUnavailable`, ru.maxUnavailable));
  return errs;
}

/** ValidateDeploymentSpec. */
function validateSpec(obj: KubeObject): FieldError[] {
  if (!isObject(obj.spec)) return [required("spec.selector"), required("spec.template")];
  const spec = obj.spec;
  const errs = [...nonNegative("spec.replicas", spec.replicas)];
  errs.push(...validateSelector(spec, "deployment"));
  errs.push(...validatePodTemplate("spec.template", spec.template));
  errs.push(...validateAlwaysRestart(spec.template, "ReplicaSet"));
  errs.push(...validateStrategy(spec.strategy));
  errs.push(...nonNegative("spec.minReadySeconds", spec.minReadySeconds));
  errs.push(...nonNegative("spec.revisionHistoryLimit", spec.revisionHistoryLimit));
  const deadline = spec.progressDeadlineSeconds;
  errs.push(...nonNegative("spec.progressDeadlineSeconds", deadline));
  if (typeof deadline === "number" && deadline <= count(spec.minReadySeconds)) {
    errs.push(
      invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"),
    );
  }
  return errs;
}

/** The Deployment kind. */
export const deploymentKind: KindDef = {
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  singular: "deployment",
  shortNames: ["deploy"],
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE, SCALE_SUBRESOURCE],
  strategy: {
    tableColumns: DEPLOYMENT_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      setDefaults(obj);
      // Annotations are copied to the ReplicaSets, so changing them is a new generation too.
      if (!deepEqual(obj.metadata.annotations ?? {}, old.metadata.annotations ?? {})) {
        obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
    },
    validate: validateSpec,
    validateUpdate(obj, old) {
      return [
        ...validateSpec(obj),
        ...immutable("spec.selector", specOf(obj).selector, specOf(old).selector),
        ...validateReplicaStatus(statusOf(obj)),
      ];
    },
  },
};
