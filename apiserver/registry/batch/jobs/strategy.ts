/** Job (batch/v1): pods run to completion. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, required } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  humanDuration,
  listOf,
  NAME_COLUMN,
} from "../../generic/table_columns.ts";
import { defaultPodTemplate, templateLabels } from "../../apps/pod_template.ts";
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
  validateSelector,
} from "../../apps/workload.ts";
import { validateJobSpec } from "./job_spec.ts";

const CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
const JOB_NAME = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID = "controller-uid";
const LEGACY_JOB_NAME = "job-name";

function hasCondition(status: Record<string, unknown>, type: string): boolean {
  return listOf(status.conditions).some((c) => c.type === type && c.status === "True");
}

function jobStatusCell(o: KubeObject): string {
  const status = statusOf(o);
  if (hasCondition(status, "Complete")) return "Complete";
  if (hasCondition(status, "Failed")) return "Failed";
  if (o.metadata?.deletionTimestamp) return "Terminating";
  if (hasCondition(status, "Suspended")) return "Suspended";
  if (hasCondition(status, "FailureTarget")) return "FailureTarget";
  return "Running";
}

function completionsCell(o: KubeObject): string {
  const spec = specOf(o), succeeded = count(statusOf(o).succeeded);
  if (typeof spec.completions === "number") return `${succeeded}/${spec.completions}`;
  const parallelism = count(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(o: KubeObject, now: number): string {
  const status = statusOf(o);
  const start = Date.parse(String(status.startTime ?? ""));
  if (Number.isNaN(start)) return "";
  const end = Date.parse(String(status.completionTime ?? ""));
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

/** Job: Name, Status, Completions, Duration, Age; wide: Containers, Images, Selector. */
const JOB_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Status", "string", "Status of the job."),
    column("Completions", "string", "The number of pods which reached phase Succeeded."),
    column("Duration", "string", "Time required to complete the job."),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    selectorColumn("A label query over pods that should match the pod count."),
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    jobStatusCell(o),
    completionsCell(o),
    durationCell(o, now),
    ageOf(o, now),
    ...containerCells(specOf(o).template),
    formatSelector(specOf(o).selector),
  ],
};

/** SetDefaults_Job, and the pod template's defaults. */
function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  const labels = isObject(spec.template) && isObject(spec.template.metadata)
    ? spec.template.metadata.labels
    : undefined;
  if (isObject(labels) && Object.keys(obj.metadata.labels ?? {}).length === 0) {
    obj.metadata.labels = { ...labels } as Record<string, string>;
  }
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  spec.manualSelector ??= false;
  spec.podReplacementPolicy ??= isObject(spec.podFailurePolicy) ? "Failed" : "TerminatingOrFailed";
  defaultPodTemplate(spec.template);
}

/** Labels the pod template with the job's name and uid, and selects the uid (generateSelector). */
function generateSelector(obj: KubeObject): void {
  const spec = specOf(obj);
  if (spec.manualSelector === true || !isObject(spec.template)) return;
  const template = spec.template;
  if (!isObject(template.metadata)) template.metadata = {};
  const meta = template.metadata as Record<string, unknown>;
  if (!isObject(meta.labels)) meta.labels = {};
  const labels = meta.labels as Record<string, unknown>;
  const name = obj.metadata.name ?? "", uid = obj.metadata.uid ?? "";
  for (const k of [LEGACY_JOB_NAME, JOB_NAME]) labels[k] ??= name;
  for (const k of [LEGACY_CONTROLLER_UID, CONTROLLER_UID]) labels[k] ??= uid;
  if (!isObject(spec.selector)) spec.selector = {};
  const sel = spec.selector as Record<string, unknown>;
  if (!isObject(sel.matchLabels)) sel.matchLabels = {};
  (sel.matchLabels as Record<string, unknown>)[CONTROLLER_UID] ??= uid;
}

/** validateGeneratedSelector: without manualSelector, the selector is the generated one. */
function validateGenerated(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  if (spec.manualSelector === true) return [];
  const uid = obj.metadata.uid ?? "";
  const labels = templateLabels(spec.template);
  const errs: FieldError[] = [];
  for (const k of [LEGACY_CONTROLLER_UID, CONTROLLER_UID]) {
    if (labels[k] !== undefined && labels[k] !== uid) {
      errs.push(invalid("spec.template.metadata.labels", labels, "`selector` not auto-generated"));
      return errs;
    }
  }
  const expected = { matchLabels: { [CONTROLLER_UID]: uid } };
  if (isObject(spec.selector) && !deepEqual(spec.selector, expected)) {
    errs.push(invalid("spec.selector", spec.selector, "`selector` not auto-generated"));
  }
  return errs;
}

function validateJob(obj: KubeObject): FieldError[] {
  if (!isObject(obj.spec)) return [required("spec.selector"), required("spec.template")];
  return [
    ...validateJobSpec("spec", obj.spec),
    ...validateSelector(obj.spec, "job"),
  ];
}

const IMMUTABLE_SPEC = [
  "completions",
  "selector",
  "completionMode",
  "podFailurePolicy",
  "backoffLimitPerIndex",
  "managedBy",
  "successPolicy",
];

function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a = specOf(obj), b = specOf(old);
  const errs = validateJob(obj);
  for (const f of IMMUTABLE_SPEC) errs.push(...immutable(`spec.${f}`, a[f], b[f]));
  // A suspended Job's template may still change (its pods are not created yet).
  if (b.suspend !== true) errs.push(...immutable("spec.template", a.template, b.template));
  const status = statusOf(obj);
  for (const f of ["active", "succeeded", "failed", "ready", "terminating"]) {
    errs.push(...nonNegative(`status.${f}`, status[f]));
  }
  return errs;
}

/** The Job kind. */
export const jobKind: KindDef = {
  group: "batch",
  version: "v1",
  kind: "Job",
  plural: "jobs",
  singular: "job",
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    selectableFields: (obj) => ({
      "status.successful": String((isObject(obj.status) ? obj.status.succeeded : 0) ?? 0),
    }),
    selectableFieldNames: ["status.successful"],
    fieldLabelError: (label) =>
      `field label ${JSON.stringify(label)} not supported for batchv1.Job`,
    tableColumns: JOB_COLUMNS,
    prepareForCreate(obj) {
      // The uid is chosen here: the generated selector and pod labels carry it.
      obj.metadata.uid = crypto.randomUUID();
      setDefaults(obj);
      generateSelector(obj);
      obj.status = {};
    },
    prepareForUpdate: setDefaults,
    validate: (obj) => [...validateJob(obj), ...validateGenerated(obj)],
    validateUpdate: validateJobUpdate,
  },
};
