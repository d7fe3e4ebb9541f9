/**
 * What the workload kinds share: label selector checks (`ValidateLabelSelector`, the selector
 * against the template's labels), non-negative and int-or-percent fields, immutable fields, and
 * the Table cells kubectl prints for them (containers, images, selectors).
 *
 * @module
 */
import type { FieldError } from "../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { isQualifiedName, isValidLabelValue } from "../../../shared/api/validation/identifiers.ts";
import {
  labelSelectorFromObject,
  type LabelSelectorObject,
} from "../../../shared/selectors/label_selector.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { invalid, required } from "../../../shared/api/validation/field_errors.ts";
import { column, listOf, objectOf } from "../generic/table_columns.ts";
import type { TableColumnDefinition } from "../generic/kind.ts";
import { templateLabels } from "./pod_template.ts";

/** `must be greater than or equal to 0` unless `v` is absent or a non-negative integer. */
export function nonNegative(field: string, v: unknown): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v !== "number" || !Number.isInteger(v)) {
    return [{ type: "FieldValueTypeInvalid", field, value: v, detail: "must be an integer" }];
  }
  return v < 0 ? [invalid(field, v, "must be greater than or equal to 0")] : [];
}

/** The `spec` of an object (`{}` when absent). */
export function specOf(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.spec) ? obj.spec : {};
}

/** The `status` of an object (`{}` when absent). */
export function statusOf(obj: KubeObject): Record<string, unknown> {
  return isObject(obj.status) ? obj.status : {};
}

/** ValidateLabelSelector: the keys, values and operators of a label selector at `field`. */
export function validateSelectorShape(
  field: string,
  sel: Record<string, unknown>,
): FieldError[] {
  const errs: FieldError[] = [];
  const labels = sel.matchLabels;
  if (isObject(labels)) {
    for (const [k, v] of Object.entries(labels)) {
      for (const msg of isQualifiedName(k)) errs.push(invalid(`${field}.matchLabels`, k, msg));
      for (const msg of isValidLabelValue(String(v))) {
        errs.push(invalid(`${field}.matchLabels`, v, msg));
      }
    }
  }
  for (const [i, e] of listOf(sel.matchExpressions).entries()) {
    const f = `${field}.matchExpressions[${i}]`;
    const values = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          errs.push(
            required(`${f}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
          );
        }
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          errs.push({
            type: "FieldValueForbidden",
            field: `${f}.values`,
            detail: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          });
        }
        break;
      default:
        errs.push(invalid(`${f}.operator`, e.operator, "not a valid selector operator"));
    }
    for (const msg of isQualifiedName(String(e.key ?? ""))) {
      errs.push(invalid(`${f}.key`, e.key, msg));
    }
  }
  return errs;
}

/**
 * Validates `spec.selector` of a workload: required, well formed, not empty (`kindName` names
 * the kind in kube's "empty selector is invalid for <kind>"), and matching the labels of the
 * template at `templateField`.
 */
export function validateSelector(
  spec: Record<string, unknown>,
  kindName: string,
  templateField = "spec.template",
): FieldError[] {
  const sel = spec.selector;
  if (sel === undefined || sel === null) return [required("spec.selector")];
  if (!isObject(sel)) return [invalid("spec.selector", sel, "invalid label selector")];
  const errs = validateSelectorShape("spec.selector", sel);
  const count = Object.keys(objectOf(sel.matchLabels)).length + listOf(sel.matchExpressions).length;
  if (count === 0) {
    errs.push(invalid("spec.selector", sel, `empty selector is invalid for ${kindName}`));
  }
  if (errs.length > 0) return errs;
  const labels = templateLabels(spec.template);
  try {
    const selector = labelSelectorFromObject(sel as LabelSelectorObject);
    if (!selector.empty() && !selector.matches(labels)) {
      errs.push(
        invalid(
          `${templateField}.metadata.labels`,
          labels,
          "`selector` does not match template `labels`",
        ),
      );
    }
  } catch {
    errs.push(invalid("spec.selector", sel, "invalid label selector"));
  }
  return errs;
}

/** `<field>: Invalid value: ...: field is immutable` when `a` and `b` differ. */
export function immutable(field: string, a: unknown, b: unknown): FieldError[] {
  return deepEqual(a ?? null, b ?? null) ? [] : [invalid(field, a ?? null, "field is immutable")];
}

function percentOf(v: string): number | undefined {
  const m = /^[0-9]+%$/.exec(v);
  return m ? Number(v.slice(0, -1)) : undefined;
}

/** ValidatePositiveIntOrPercent: a non-negative integer or a percentage such as `25%`. */
export function intOrPercent(field: string, v: unknown): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") {
    return percentOf(v) === undefined
      ? [
        invalid(
          field,
          v,
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
      ]
      : [];
  }
  return nonNegative(field, v);
}

/** The value of an int-or-percent (the percentage number for a percent string). */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === "string") return percentOf(v) ?? (Number.parseInt(v, 10) || 0);
  return typeof v === "number" ? v : 0;
}

/** `must not be greater than 100%` for a percentage above 100. */
export function notOver100(field: string, v: unknown): FieldError[] {
  if (typeof v !== "string") return [];
  const p = percentOf(v);
  return p !== undefined && p > 100 ? [invalid(field, v, "must not be greater than 100%")] : [];
}

/** The names and the images of a pod template's containers, comma-separated (kubectl's cells). */
export function containerCells(template: unknown): [string, string] {
  const containers = listOf(objectOf(objectOf(template).spec).containers);
  return [
    containers.map((c) => String(c.name ?? "")).join(","),
    containers.map((c) => String(c.image ?? "")).join(","),
  ];
}

/** A label selector as `metav1.FormatLabelSelector` prints it (`<none>` for none). */
export function formatSelector(sel: unknown): string {
  try {
    const s = labelSelectorFromObject(isObject(sel) ? sel as LabelSelectorObject : undefined)
      .toString();
    return s === "" ? "<none>" : s;
  } catch {
    return "<error>";
  }
}

/** A label map as `labels.FormatLabels` prints it (`<none>` when empty). */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(objectOf(labels)).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
}

/** An integer status field, 0 when absent. */
export function count(v: unknown): number {
  return typeof v === "number" ? v : 0;
}

/**
 * The template rules of the pod-owning apps kinds: restartPolicy Always only, no
 * activeDeadlineSeconds (`kindName` as kube's message names it, e.g. `ReplicaSet`).
 */
export function validateAlwaysRestart(template: unknown, kindName: string): FieldError[] {
  const spec = isObject(template) && isObject(template.spec) ? template.spec : {};
  const errs: FieldError[] = [];
  if (spec.restartPolicy !== undefined && spec.restartPolicy !== "Always") {
    errs.push({
      type: "FieldValueNotSupported",
      field: "spec.template.spec.restartPolicy",
      value: spec.restartPolicy,
      detail: `supported values: "Always"`,
    });
  }
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errs.push({
      type: "FieldValueForbidden",
      field: "spec.template.spec.activeDeadlineSeconds",
      detail: `activeDeadlineSeconds in ${kindName} is not Supported`,
    });
  }
  return errs;
}

/** The wide columns every pod-owning workload prints: Containers and Images. */
export const TEMPLATE_COLUMNS: readonly TableColumnDefinition[] = [
  column("Containers", "string", "Names of each container in the template.", 1),
  column("Images", "string", "Images referenced by each container in the template.", 1),
];

/** The Selector column of a workload's wide output. */
export function selectorColumn(description: string): TableColumnDefinition {
  return column("Selector", "string", description, 1);
}

/** The replica counts of a Deployment, ReplicaSet or StatefulSet status (ValidateDeploymentStatus and its siblings). */
export function validateReplicaStatus(status: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  for (
    const f of [
      "observedGeneration",
      "replicas",
      "updatedReplicas",
      "readyReplicas",
      "availableReplicas",
      "unavailableReplicas",
      "fullyLabeledReplicas",
      "currentReplicas",
      "collisionCount",
    ]
  ) errs.push(...nonNegative(`status.${f}`, status[f]));
  const replicas = count(status.replicas);
  for (
    const f of ["updatedReplicas", "readyReplicas", "availableReplicas", "fullyLabeledReplicas"]
  ) {
    if (count(status[f]) > replicas) {
      errs.push(invalid(`status.${f}`, status[f], "cannot be greater than status.replicas"));
    }
  }
  if (count(status.availableReplicas) > count(status.readyReplicas)) {
    errs.push(
      invalid(
        "status.availableReplicas",
        status.availableReplicas,
        "cannot be greater than readyReplicas",
      ),
    );
  }
  return errs;
}
