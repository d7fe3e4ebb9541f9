/**
 * RuntimeClass (node.k8s.io/v1): a container runtime configuration pods name. Validation (the
 * handler a DNS label and immutable, overhead, scheduling) and kubectl's columns as
 * kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  duplicate,
  invalid,
  notSupported,
} from "../../../../shared/api/validation/field_errors.ts";
import {
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
} from "../../../../shared/api/validation/identifiers.ts";
import { validateLabels } from "../../../../shared/api/validation/object_meta.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, listOf, NAME_COLUMN } from "../../generic/table_columns.ts";
import { validateResourceList } from "../../core/resource_list.ts";

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

const RUNTIME_CLASS_COLUMNS: TableColumns = {
  columns: [NAME_COLUMN, column("Handler", "string", ""), AGE_COLUMN],
  cells: (o, now) => [o.metadata?.name ?? "", String(o.handler ?? ""), ageOf(o, now)],
};

/** ValidateTolerations of core validation, for one toleration. */
function validateToleration(f: string, t: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const key = String(t.key ?? ""), op = String(t.operator ?? ""), value = String(t.value ?? "");
  const effect = String(t.effect ?? "");
  if (key !== "") { for (const m of isQualifiedName(key)) errs.push(invalid(`${f}.key`, key, m)); }
  if (key === "" && op !== "Exists") {
    errs.push(
      invalid(
        `${f}.operator`,
        op,
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ),
    );
  }
  if (t.tolerationSeconds !== undefined && effect !== "NoExecute") {
    errs.push(
      invalid(`${f}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
    );
  }
  if (op === "Equal" || op === "") {
    for (const m of isValidLabelValue(value)) errs.push(invalid(`${f}.operator`, value, m));
  } else if (op === "Exists") {
    if (value !== "") {
      errs.push(invalid(`${f}.operator`, t, "value must be empty when `operator` is 'Exists'"));
    }
  } else errs.push(notSupported(`${f}.operator`, op, ["Equal", "Exists"]));
  if (effect !== "" && !EFFECTS.includes(effect)) {
    errs.push(notSupported(`${f}.effect`, effect, EFFECTS));
  }
  return errs;
}

/** validateScheduling of RuntimeClass validation (kube nests the tolerations' path twice). */
function validateScheduling(s: Record<string, unknown>): FieldError[] {
  const errs = isObject(s.nodeSelector)
    ? validateLabels(s.nodeSelector, "scheduling.nodeSelector")
    : [];
  const seen: Record<string, unknown>[] = [];
  for (const [i, t] of listOf(s.tolerations).entries()) {
    errs.push(...validateToleration(`scheduling.tolerations.tolerations[${i}]`, t));
    const key = {
      key: t.key ?? "",
      operator: t.operator ?? "",
      value: t.value ?? "",
      effect: t.effect ?? "",
    };
    if (seen.some((k) => deepEqual(k, key))) {
      errs.push(duplicate(`scheduling.tolerations[${i}]`, t));
    } else seen.push(key);
  }
  return errs;
}

/** ValidateRuntimeClass. */
function validate(o: KubeObject): FieldError[] {
  const handler = typeof o.handler === "string" ? o.handler : "";
  const errs = isDNS1123Label(handler).map((m) => invalid("handler", handler, m));
  if (isObject(o.overhead)) {
    errs.push(...validateResourceList("overhead.limits", o.overhead.podFixed));
  }
  if (isObject(o.scheduling)) errs.push(...validateScheduling(o.scheduling));
  return errs;
}

/** The RuntimeClass kind. */
export const runtimeClassKind: KindDef = {
  group: "node.k8s.io",
  version: "v1",
  kind: "RuntimeClass",
  plural: "runtimeclasses",
  singular: "runtimeclass",
  namespaced: false,
  strategy: {
    tableColumns: RUNTIME_CLASS_COLUMNS,
    validate,
    validateUpdate(o, old) {
      const errs = o.handler === old.handler
        ? []
        : [invalid("handler", o.handler ?? "", "field is immutable")];
      return errs;
    },
  },
};
