/** ReplicaSet (apps/v1): a number of pod replicas from one template. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { required } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { defaultPodTemplate, validatePodTemplate } from "../pod_template.ts";
import { SCALE_SUBRESOURCE } from "../scale.ts";
import {
  containerCells,
  count,
  formatSelector,
  immutable,
  nonNegative,
  selectorColumn,
  specOf,
  statusOf,
  TEMPLATE_COLUMNS,
  validateAlwaysRestart,
  validateReplicaStatus,
  validateSelector,
} from "../workload.ts";

/** ReplicaSet: Name, Desired, Current, Ready, Age; wide: Containers, Images, Selector. */
const REPLICASET_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Desired", "integer", "Replicas is the number of desired replicas."),
    column("Current", "integer", "Replicas is the most recently observed number of replicas."),
    column("Ready", "integer", "The number of ready replicas for this replica set."),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    selectorColumn("Selector is a label query over pods that should match the replica count."),
  ],
  cells(o, now) {
    const spec = specOf(o), status = statusOf(o);
    return [
      o.metadata?.name ?? "",
      count(spec.replicas),
      count(status.replicas),
      count(status.readyReplicas),
      ageOf(o, now),
      ...containerCells(spec.template),
      formatSelector(spec.selector),
    ];
  },
};

function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  obj.spec.replicas ??= 1;
  defaultPodTemplate(obj.spec.template);
}

/** ValidateReplicaSetSpec. */
function validateSpec(obj: KubeObject): FieldError[] {
  if (!isObject(obj.spec)) return [required("spec.selector")];
  const spec = obj.spec;
  return [
    ...nonNegative("spec.replicas", spec.replicas),
    ...nonNegative("spec.minReadySeconds", spec.minReadySeconds),
    ...validateSelector(spec, "deployment"),
    ...validatePodTemplate("spec.template", spec.template),
    ...validateAlwaysRestart(spec.template, "ReplicaSet"),
  ];
}

/** The ReplicaSet kind. */
export const replicaSetKind: KindDef = {
  group: "apps",
  version: "v1",
  kind: "ReplicaSet",
  plural: "replicasets",
  singular: "replicaset",
  shortNames: ["rs"],
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE, SCALE_SUBRESOURCE],
  strategy: {
    tableColumns: REPLICASET_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      obj.status = { replicas: 0 };
    },
    prepareForUpdate: setDefaults,
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
