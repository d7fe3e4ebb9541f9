/**
 * PriorityClass (scheduling.k8s.io/v1): maps a class name to the priority of its pods. Defaults,
 * validation (the reserved `system-` prefix, the highest user-definable value, immutable value
 * and preemptionPolicy) and kubectl's columns as kube-apiserver's; the system classes may not
 * be deleted.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN } from "../../generic/table_columns.ts";
import { SYSTEM_PRIORITY_CLASSES } from "./system_priority_classes.ts";

/** The highest priority a user-defined class may have. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = "system-";

const PRIORITY_CLASS_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "Value",
      "integer",
      "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
    ),
    column(
      "Global-Default",
      "boolean",
      "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.",
    ),
    AGE_COLUMN,
    column(
      "PreemptionPolicy",
      "string",
      "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
    ),
  ],
  cells: (o, now) => [
    o.metadata?.name ?? "",
    Number(o.value ?? 0),
    o.globalDefault === true,
    ageOf(o, now),
    String(o.preemptionPolicy ?? ""),
  ],
};

/** SetDefaults_PriorityClass (and the int32 value's zero). */
function setDefaults(o: KubeObject): void {
  o.value ??= 0;
  o.preemptionPolicy ??= "PreemptLowerPriority";
}

/** IsKnownSystemPriorityClass: undefined when `o` is one, else why not. */
function systemClassError(o: KubeObject): string | undefined {
  const name = o.metadata?.name ?? "";
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== o.value) return `value of ${name} PriorityClass must be ${known.value}`;
  if ((o.globalDefault === true) !== false) {
    return `globalDefault of ${name} PriorityClass must be false`;
  }
  return undefined;
}

/** ValidatePriorityClass. */
function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if ((o.metadata?.name ?? "").startsWith(SYSTEM_PREFIX)) {
    const why = systemClassError(o);
    if (why) {
      errs.push(
        forbidden(
          "metadata.name",
          `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`,
        ),
      );
    }
  } else if (typeof o.value === "number" && o.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(
      forbidden(
        "value",
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
      ),
    );
  }
  const policy = o.preemptionPolicy;
  if (policy === "") errs.push(required("preemptionPolicy"));
  else if (policy !== undefined && policy !== "PreemptLowerPriority" && policy !== "Never") {
    errs.push(notSupported("preemptionPolicy", policy, ["PreemptLowerPriority", "Never"]));
  }
  return errs;
}

/** ValidatePriorityClassUpdate: value and preemptionPolicy may not change. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.value !== old.value) errs.push(forbidden("value", "may not be changed in an update."));
  if (o.preemptionPolicy !== old.preemptionPolicy) {
    errs.push(invalid("preemptionPolicy", o.preemptionPolicy ?? null, "field is immutable"));
  }
  return errs;
}

/** The PriorityClass kind. */
export const priorityClassKind: KindDef = {
  group: "scheduling.k8s.io",
  version: "v1",
  kind: "PriorityClass",
  plural: "priorityclasses",
  singular: "priorityclass",
  shortNames: ["pc"],
  namespaced: false,
  strategy: {
    tableColumns: PRIORITY_CLASS_COLUMNS,
    prepareForCreate: setDefaults,
    prepareForUpdate: setDefaults,
    validate,
    validateUpdate,
    deleteForbidden: (name) =>
      SYSTEM_PRIORITY_CLASSES.some((c) => c.name === name)
        ? "this is a system priority class and cannot be deleted"
        : undefined,
  },
};
