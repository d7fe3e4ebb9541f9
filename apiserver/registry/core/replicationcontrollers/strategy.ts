/**
 * ReplicationController: keeps a number of pods from a template running, with a status
 * subresource. Defaults (replicas 1, selector and labels from the template's labels) and the
 * main validation as kube-apiserver's; columns as kubectl prints them.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { validateLabels } from "../../../../shared/api/validation/object_meta.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import {
  type KindDef,
  STATUS_SUBRESOURCE,
  type SubresourceDef,
  type TableColumns,
} from "../../generic/kind.ts";
import { SCALE_SUBRESOURCE, scaleOf } from "../../apps/scale.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";
import {
  defaultPodTemplate,
  templateCells,
  validatePodTemplate,
} from "../podtemplates/strategy.ts";
import { formatLabels } from "../services/table.ts";

function defaults(o: KubeObject): void {
  if (!isObject(o.spec)) return;
  const spec = o.spec;
  const labels = obj(obj(spec.template).metadata).labels;
  if (isObject(labels) && Object.keys(labels).length > 0) {
    if (!isObject(spec.selector) || Object.keys(spec.selector).length === 0) {
      spec.selector = { ...labels };
    }
    if (!o.metadata.labels || Object.keys(o.metadata.labels).length === 0) {
      o.metadata.labels = { ...labels } as Record<string, string>;
    }
  }
  spec.replicas ??= 1;
  defaultPodTemplate(spec.template);
}

function validate(o: KubeObject): FieldError[] {
  if (!isObject(o.spec)) return [required("spec")];
  const spec = o.spec;
  const errs: FieldError[] = [];
  const selector = obj(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(required("spec.selector"));
  else errs.push(...validateLabels(selector, "spec.selector"));
  const r = spec.replicas;
  if (typeof r !== "number" || !Number.isInteger(r) || r < 0) {
    errs.push(invalid("spec.replicas", r, "must be greater than or equal to 0"));
  }
  if (!isObject(spec.template)) {
    errs.push(required("spec.template"));
    return errs;
  }
  const labels = obj(obj(spec.template).metadata).labels as Record<string, unknown>;
  const matches = Object.entries(selector).every(([k, v]) => obj(labels)[k] === v);
  if (Object.keys(selector).length > 0 && !matches) {
    errs.push(
      invalid(
        "spec.template.metadata.labels",
        labels ?? {},
        "`selector` does not match template `labels`",
      ),
    );
  }
  errs.push(...validatePodTemplate("spec.template", spec.template));
  const policy = obj(obj(spec.template).spec).restartPolicy;
  if (policy !== undefined && policy !== "Always") {
    errs.push(notSupported("spec.template.spec.restartPolicy", policy, ["Always"]));
  }
  return errs;
}

const RC_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Desired", "integer", "Number of desired pods."),
    col("Current", "integer", "Number of actual replicas."),
    col("Ready", "integer", "The number of ready replicas for this replication controller."),
    AGE_COLUMN,
    col("Containers", "string", "Names of each container in the template.", 1),
    col("Images", "string", "Images referenced by each container in the template.", 1),
    col("Selector", "string", "Label selector for pods.", 1),
  ],
  cells(o, now) {
    const spec = obj(o.spec), st = obj(o.status);
    const [containers, images] = templateCells(spec.template);
    return [
      o.metadata?.name ?? "",
      Number(spec.replicas ?? 0),
      Number(st.replicas ?? 0),
      Number(st.readyReplicas ?? 0),
      age(o, now),
      containers,
      images,
      formatLabels(spec.selector),
    ];
  },
};

/**
 * `scale`, as autoscaling/v1 Scale like the apps workloads' (an RC's selector is a plain map,
 * shown as `k=v` in `status.selector`).
 */
const RC_SCALE_SUBRESOURCE: SubresourceDef = {
  ...SCALE_SUBRESOURCE,
  view: (o) =>
    scaleOf({ ...o, spec: { ...obj(o.spec), selector: { matchLabels: obj(o.spec).selector } } }),
};

/** The ReplicationController kind. */
export const replicationControllerKind: KindDef = {
  group: "",
  version: "v1",
  kind: "ReplicationController",
  plural: "replicationcontrollers",
  singular: "replicationcontroller",
  shortNames: ["rc"],
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE, RC_SCALE_SUBRESOURCE],
  strategy: {
    selectableFields: (obj) => ({
      "status.replicas": String((isObject(obj.status) ? obj.status.replicas : 0) ?? 0),
    }),
    selectableFieldNames: ["status.replicas"],
    tableColumns: RC_COLUMNS,
    prepareForCreate(o) {
      defaults(o);
      o.status = { replicas: 0 };
    },
    prepareForUpdate: defaults,
    validate,
  },
};
