/**
 * PodDisruptionBudget (policy/v1): how many of the pods a selector picks must stay available
 * (or may be unavailable) during voluntary disruptions such as evictions. Its status is written
 * by the disruption controller and by the `pods/eviction` subresource.
 *
 * @module
 */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import { invalid, notSupported } from "../../../../shared/api/validation/field_errors.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import {
  count,
  intOrPercent,
  nonNegative,
  notOver100,
  specOf,
  statusOf,
  validateSelectorShape,
} from "../../apps/workload.ts";

const EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"];

/** An int-or-string as `IntOrString.String()` prints it, or `N/A` when absent. */
function intOrStringCell(v: unknown): string {
  return v === undefined || v === null ? "N/A" : String(v);
}

/** PodDisruptionBudget: Name, Min Available, Max Unavailable, Allowed Disruptions, Age. */
const PDB_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column("Min Available", "string", "The minimum number of pods that must be available."),
    column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
    column(
      "Allowed Disruptions",
      "integer",
      "Calculated number of pods that may be disrupted at this time.",
    ),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = specOf(o);
    return [
      o.metadata?.name ?? "",
      intOrStringCell(spec.minAvailable),
      intOrStringCell(spec.maxUnavailable),
      count(statusOf(o).disruptionsAllowed),
      ageOf(o, now),
    ];
  },
};

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const has = (v: unknown) => v !== undefined && v !== null;
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) {
    errs.push(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const f of ["minAvailable", "maxUnavailable"]) {
    errs.push(...intOrPercent(`spec.${f}`, spec[f]), ...notOver100(`spec.${f}`, spec[f]));
  }
  if (isObject(spec.selector)) errs.push(...validateSelectorShape("spec.selector", spec.selector));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (has(policy) && !EVICTION_POLICIES.includes(String(policy))) {
    errs.push(notSupported("spec.unhealthyPodEvictionPolicy", policy, EVICTION_POLICIES));
  }
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1): the counts are non-negative. */
function validateStatus(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  return ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]
    .flatMap((f) => nonNegative(`status.${f}`, status[f]));
}

/** The status of a new budget: every count 0 (the disruption controller fills it in). */
export function emptyBudgetStatus(): Record<string, unknown> {
  return { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
}

/** The PodDisruptionBudget kind. */
export const podDisruptionBudgetKind: KindDef = {
  group: "policy",
  version: "v1",
  kind: "PodDisruptionBudget",
  plural: "poddisruptionbudgets",
  singular: "poddisruptionbudget",
  shortNames: ["pdb"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: PDB_COLUMNS,
    prepareForCreate(obj) {
      obj.status = emptyBudgetStatus();
    },
    validate: validatePodDisruptionBudget,
    validateUpdate(obj) {
      return [...validatePodDisruptionBudget(obj), ...validateStatus(obj)];
    },
  },
};
