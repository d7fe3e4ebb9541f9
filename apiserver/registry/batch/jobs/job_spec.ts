/**
 * The checks of a Job spec that Job and CronJob's job template share (`validateJobSpec`):
 * counts, completion mode, replacement policy and the pod template (restartPolicy OnFailure or
 * Never), with kube's field paths and messages.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { templateSpec, validatePodTemplate } from "../../apps/pod_template.ts";
import { nonNegative } from "../../apps/workload.ts";

const COUNTS = [
  "parallelism",
  "completions",
  "activeDeadlineSeconds",
  "backoffLimit",
  "ttlSecondsAfterFinished",
  "backoffLimitPerIndex",
  "maxFailedIndexes",
];

/** Validates the job spec at `field` (`spec` of a Job, `spec.jobTemplate.spec` of a CronJob). */
export function validateJobSpec(field: string, spec: unknown): FieldError[] {
  if (!isObject(spec)) return [required(`${field}.template`)];
  const errs = COUNTS.flatMap((f) => nonNegative(`${field}.${f}`, spec[f]));
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== "NonIndexed" && mode !== "Indexed") {
    errs.push(notSupported(`${field}.completionMode`, mode, ["NonIndexed", "Indexed"]));
  }
  if (mode === "Indexed" && (spec.completions === undefined || spec.completions === null)) {
    errs.push(required(`${field}.completions`, "when completion mode is Indexed"));
  }
  const replacement = spec.podReplacementPolicy;
  if (
    replacement !== undefined && replacement !== "Failed" && replacement !== "TerminatingOrFailed"
  ) {
    errs.push(
      notSupported(`${field}.podReplacementPolicy`, replacement, ["TerminatingOrFailed", "Failed"]),
    );
  }
  errs.push(...validatePodTemplate(`${field}.template`, spec.template));
  const restart = templateSpec(spec.template).restartPolicy;
  if (restart !== "OnFailure" && restart !== "Never") {
    errs.push(
      notSupported(`${field}.template.spec.restartPolicy`, restart ?? "", ["OnFailure", "Never"]),
    );
  }
  return errs;
}
