/** CronJob (batch/v1): Jobs on a schedule. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageCell,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import { defaultPodTemplate } from "../../apps/pod_template.ts";
import {
  validateAnnotations,
  validateLabels,
} from "../../../../shared/api/validation/object_meta.ts";
import {
  containerCells,
  formatSelector,
  nonNegative,
  selectorColumn,
  specOf,
  statusOf,
  TEMPLATE_COLUMNS,
} from "../../apps/workload.ts";
import { validateJobSpec } from "../jobs/job_spec.ts";
import { cronScheduleError, isTimeZone } from "./cron_schedule.ts";

/** CronJob: Schedule, Timezone, Suspend, Active, Last Schedule, Age; wide as Job. */
const CRONJOB_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Schedule", "string", "The schedule in Cron format."),
    column("Timezone", "string", "The time zone name for the given schedule."),
    column(
      "Suspend",
      "boolean",
      "This flag tells the controller to suspend subsequent executions.",
    ),
    column("Active", "integer", "A list of pointers to currently running jobs."),
    column(
      "Last Schedule",
      "string",
      "Information when was the last time the job was successfully scheduled.",
    ),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
    selectorColumn("A label query over pods that should match the pod count."),
  ],
  cells(o, now) {
    const spec = specOf(o), status = statusOf(o);
    const jobSpec = objectOf(objectOf(spec.jobTemplate).spec);
    const last = status.lastScheduleTime;
    return [
      o.metadata?.name ?? "",
      String(spec.schedule ?? ""),
      typeof spec.timeZone === "string" ? spec.timeZone : "<none>",
      typeof spec.suspend === "boolean" ? (spec.suspend ? "True" : "False") : "<unset>",
      listOf(status.active).length,
      last ? ageCell(last, now) : "<none>",
      ageOf(o, now),
      ...containerCells(jobSpec.template),
      formatSelector(jobSpec.selector),
    ];
  },
};

/** SetDefaults_CronJob, and the job template's pod template defaults. */
function setDefaults(obj: KubeObject): void {
  if (!isObject(obj.spec)) return;
  const spec = obj.spec;
  spec.concurrencyPolicy ??= "Allow";
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  if (isObject(spec.jobTemplate) && isObject(spec.jobTemplate.spec)) {
    defaultPodTemplate(spec.jobTemplate.spec.template);
  }
}

function validateSchedule(spec: Record<string, unknown>): FieldError[] {
  const schedule = spec.schedule;
  if (typeof schedule !== "string" || schedule === "") return [required("spec.schedule")];
  const errs: FieldError[] = [];
  const err = cronScheduleError(schedule);
  if (err) errs.push(invalid("spec.schedule", schedule, err));
  if (schedule.includes("TZ")) {
    errs.push(
      invalid(
        "spec.schedule",
        schedule,
        "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
      ),
    );
  }
  const tz = spec.timeZone;
  if (tz !== undefined && tz !== null) {
    if (tz === "") {
      errs.push(invalid("spec.timeZone", tz, "timeZone must be nil or non-empty string"));
    } else if (String(tz).toLowerCase() === "local") {
      errs.push(
        invalid(
          "spec.timeZone",
          tz,
          "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        ),
      );
    } else if (!isTimeZone(String(tz))) {
      errs.push(invalid("spec.timeZone", tz, `unknown time zone ${tz}`));
    }
  }
  return errs;
}

function validateJobTemplate(template: unknown): FieldError[] {
  const f = "spec.jobTemplate";
  if (!isObject(template)) return [required(`${f}.spec.template`)];
  const meta = objectOf(template.metadata);
  const jobSpec = objectOf(template.spec);
  const errs = [
    ...validateLabels(meta.labels, `${f}.metadata.labels`),
    ...validateAnnotations(meta.annotations, `${f}.metadata.annotations`),
    ...validateJobSpec(`${f}.spec`, template.spec),
  ];
  if (jobSpec.selector !== undefined && jobSpec.selector !== null) {
    errs.push(invalid(`${f}.spec.selector`, jobSpec.selector, "`selector` will be auto-generated"));
  }
  if (jobSpec.manualSelector === true) {
    errs.push(notSupported(`${f}.spec.manualSelector`, true, ["nil", "false"]));
  }
  return errs;
}

function validate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? "";
  if (name.length > 52) {
    errs.push(invalid("metadata.name", name, "must be no more than 52 characters"));
  }
  if (!isObject(obj.spec)) return [...errs, required("spec.schedule")];
  const spec = obj.spec;
  errs.push(...validateSchedule(spec));
  const policy = spec.concurrencyPolicy;
  if (policy === undefined || policy === "") errs.push(required("spec.concurrencyPolicy"));
  else if (!["Allow", "Forbid", "Replace"].includes(String(policy))) {
    errs.push(notSupported("spec.concurrencyPolicy", policy, ["Allow", "Forbid", "Replace"]));
  }
  for (
    const f of ["startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"]
  ) {
    errs.push(...nonNegative(`spec.${f}`, spec[f]));
  }
  errs.push(...validateJobTemplate(spec.jobTemplate));
  return errs;
}

/** The CronJob kind. */
export const cronJobKind: KindDef = {
  group: "batch",
  version: "v1",
  kind: "CronJob",
  plural: "cronjobs",
  singular: "cronjob",
  shortNames: ["cj"],
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: CRONJOB_COLUMNS,
    prepareForCreate(obj) {
      setDefaults(obj);
      obj.status = {};
    },
    prepareForUpdate: setDefaults,
    validate,
    validateUpdate: (obj) => validate(obj).filter((e) => e.field !== "metadata.name"),
  },
};
