/** DaemonSet (apps/v1): a pod on every (selected) node. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { defaultPodTemplate, templateSpec, validatePodTemplate } from "../pod_template.ts";
import {
  containerCells,
  count,
  formatLabels,
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
  validateSelector,
} from "../workload.ts";

/** DaemonSet: Desired, Current, Ready, Up-to-date, Available, Node Selector, Age; wide. */
const DAEMONSET_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "Desired",
      "integer",
      "The total number of nodes that should be running the daemon pod.",
    ),
    column("Current", "integer", "The number of nodes running at least one daemon pod."),
    column("Ready", "integer", "The number of nodes with a ready daemon pod."),
    column("Up-to-date", "integer", "The number of nodes running the updated daemon pod."),
    column("Available", "integer", "The number of nodes with an available daemon pod."),
    column("Node Selector", "string", "The labels a node must have to run the daemon pod."),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    selectorColumn("A label query over pods that are managed by the daemon set."),
  ],
  cells(o, now) {
    const spec = specOf(o), status = statusOf(o);
    return [
      o.metadata?.name ?? "",
      count(status.desiredNumberScheduled),
      count(status.currentNumberScheduled),
      count(status.numberReady),
      count(status.updatedNumberScheduled),
      count(status.numberAvailable),
      formatLabels(templateSpec(spec.template).nodeSelector),
      ageOf(o, now),
      ...containerCells(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

/** SetDefaults_DaemonSet, and the pod template's defaults. */
function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const us = spec.updateStrategy as Record<string, unknown>;
  us.type ??= "RollingUpdate";
  if (us.type === "RollingUpdate") {
    if (!isObject(us.rollingUpdate)) us.rollingUpdate = {};
    const ru = us.rollingUpdate as Record<string, unknown>;
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplate(spec.template);
}

function validateUpdateStrategy(us: Record<string, unknown>): FieldError[] {
  const f = "spec.updateStrategy";
  if (us.type === "OnDelete") return [];
  if (us.type !== "RollingUpdate") return [notSupported(f, us, ["RollingUpdate", "OnDelete"])];
  if (!isObject(us.rollingUpdate)) return [required(`${f}.rollingUpdate`)];
  const ru = us.rollingUpdate;
  const errs = [
    ...intOrPercent(`${f}.rollingUpdate.maxUnavailable`, ru.maxUnavailable),
    ...intOrPercent(`${f}.rollingUpdate.maxSurge`, ru.maxSurge),
    ...notOver100(`${f}.rollingUpdate.maxUnavailable`, ru.maxUnavailable),
    ...notOver100(`${f}.rollingUpdate.maxSurge`, ru.maxSurge),
  ];
  const unavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const surge = intOrPercentValue(ru.maxSurge) !== 0;
  if (unavailable && surge) {
    errs.push(
      invalid(
        `${f}.rollingUpdate.maxSurge`,
        ru.maxSurge,
        "may not be set when maxUnavailable is non-zero",
      ),
    );
  } else if (!unavailable && !surge) {
    errs.push(required(`${f}.rollingUpdate.maxUnavailable`, "cannot be 0 when maxSurge is 0"));
  }
  return errs;
}

/** ValidateDaemonSetSpec. */
function validateSpec(obj: KubeObject): FieldError[] {
  if (!isObject(obj.spec)) return [required("spec.selector")];
  const spec = obj.spec;
  return [
    ...validateSelector(spec, "daemonset"),
    ...validatePodTemplate("spec.template", spec.template),
    ...validateAlwaysRestart(spec.template, "DaemonSet"),
    ...nonNegative("spec.minReadySeconds", spec.minReadySeconds),
    ...validateUpdateStrategy(isObject(spec.updateStrategy) ? spec.updateStrategy : {}),
    ...nonNegative("spec.revisionHistoryLimit", spec.revisionHistoryLimit),
  ];
}

function validateStatus(status: Record<string, unknown>): FieldError[] {
  return [
    "currentNumberScheduled",
    "numberMisscheduled",
    "desiredNumberScheduled",
    "numberReady",
    "observedGeneration",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
    "collisionCount",
  ].flatMap((f) => nonNegative(`status.${f}`, status[f]));
}

/** The DaemonSet kind. */
export const daemonSetKind: KindDef = {
  group: "apps",
  version: "v1",
  kind: "DaemonSet",
  plural: "daemonsets",
  singular: "daemonset",
  shortNames: ["ds"],
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: DAEMONSET_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      obj.status = {
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
      };
    },
    prepareForUpdate: setDefaults,
    validate: validateSpec,
    validateUpdate(obj, old) {
      return [
        ...validateSpec(obj),
        ...immutable("spec.selector", specOf(obj).selector, specOf(old).selector),
        ...validateStatus(statusOf(obj)),
      ];
    },
  },
};
