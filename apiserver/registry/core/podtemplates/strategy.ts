/**
 * PodTemplate: a stored pod template. Its pod spec gets the Pod kind's defaults and
 * validation (fields under `template.`); columns as kubectl prints them (no Age).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { required } from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import {
  column as col,
  listOf as list,
  NAME_COLUMN,
  objectOf as obj,
} from "../../generic/table_columns.ts";
import { podKind } from "../pods/strategy.ts";
import { formatLabels } from "../services/table.ts";

/** Applies the Pod defaults to a pod template's spec (`template.spec`). */
export function defaultPodTemplate(template: unknown): void {
  if (!isObject(template) || !isObject(template.spec)) return;
  const pod: KubeObject = { metadata: {}, spec: template.spec };
  podKind.strategy.prepareForCreate?.(pod);
  template.spec = pod.spec;
}

/** Validates a pod template at `field` (e.g. `template` or `spec.template`). */
export function validatePodTemplate(field: string, template: unknown): FieldError[] {
  if (!isObject(template)) return [required(field)];
  const pod: KubeObject = { metadata: {}, spec: template.spec };
  return podKind.strategy.validate(pod).map((e) => ({ ...e, field: `${field}.${e.field}` }));
}

/** The Containers, Images and Pod Labels cells of a pod template. */
export function templateCells(template: unknown): string[] {
  const t = obj(template);
  const containers = list(obj(t.spec).containers);
  return [
    containers.map((c) => String(c.name ?? "")).join(","),
    containers.map((c) => String(c.image ?? "")).join(","),
    formatLabels(obj(t.metadata).labels),
  ];
}

const PODTEMPLATE_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Containers", "string", "Names of each container in the template."),
    col("Images", "string", "Images referenced by each container in the template."),
    col("Pod Labels", "string", "The labels for the pod template."),
  ],
  cells: (o) => [o.metadata?.name ?? "", ...templateCells(o.template)],
};

/** The PodTemplate kind. */
export const podTemplateKind: KindDef = {
  group: "",
  version: "v1",
  kind: "PodTemplate",
  plural: "podtemplates",
  singular: "podtemplate",
  namespaced: true,
  returnDeletedObject: true,
  strategy: {
    tableColumns: PODTEMPLATE_COLUMNS,
    prepareForCreate: (o) => defaultPodTemplate(o.template),
    prepareForUpdate: (o) => defaultPodTemplate(o.template),
    validate: (o) => validatePodTemplate("template", o.template),
  },
};
