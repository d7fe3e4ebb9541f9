/**
 * Validation of autoscaling/v2 HorizontalPodAutoscaler, with Kubernetes 1.32's rules and
 * messages (pkg/apis/autoscaling/validation): the scale target, the replica bounds, each metric
 * source and target, and the scaling behavior.
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
import {
  isDNS1123Label,
  isValidPathSegmentName,
} from "../../../../shared/api/validation/identifiers.ts";
import { tryParseQuantity } from "../../../../shared/api/quantity.ts";
import { objectOf } from "../../generic/table_columns.ts";

type Obj = Record<string, unknown>;

const METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
const SOURCE_FIELDS = ["object", "pods", "resource", "external", "containerResource"];
const FIELD_OF_TYPE: Record<string, string> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  External: "external",
  ContainerResource: "containerResource",
};
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** The errors of an HPA's spec (create and update). */
export function validateHorizontalPodAutoscaler(obj: KubeObject): FieldError[] {
  const spec = objectOf(obj.spec);
  const errs: FieldError[] = [];
  const min = spec.minReplicas as number | undefined;
  const max = Number(spec.maxReplicas ?? 0);
  if (min !== undefined && min < 1) {
    errs.push(invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
  }
  if (max < 1) errs.push(invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (min !== undefined && max < min) {
    errs.push(invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  }
  errs.push(...validateReference(objectOf(spec.scaleTargetRef), "spec.scaleTargetRef"));
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  metrics.forEach((m, i) => errs.push(...validateMetricSpec(objectOf(m), `spec.metrics[${i}]`)));
  if (spec.behavior !== undefined && spec.behavior !== null) {
    const b = objectOf(spec.behavior);
    errs.push(...validateScalingRules(b.scaleUp, "spec.behavior.scaleUp"));
    errs.push(...validateScalingRules(b.scaleDown, "spec.behavior.scaleDown"));
  }
  return errs;
}

/** The errors of a status update: replica counts are not negative. */
export function validateHorizontalPodAutoscalerStatus(obj: KubeObject): FieldError[] {
  const status = objectOf(obj.status);
  const errs: FieldError[] = [];
  for (const f of ["currentReplicas", "desiredReplicas"]) {
    const v = Number(status[f] ?? 0);
    if (v < 0) errs.push(invalid(`status.${f}`, v, "must be greater than or equal to 0"));
  }
  return errs;
}

function validateReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["kind", "name"]) {
    const v = String(ref[f] ?? "");
    if (v === "") errs.push(required(`${path}.${f}`));
    else for (const msg of isValidPathSegmentName(v)) errs.push(invalid(`${path}.${f}`, v, msg));
  }
  return errs;
}

function validateMetricSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = String(spec.type ?? "");
  if (type === "") errs.push(required(`${path}.type`, "must specify a metric source type"));
  if (!METRIC_SOURCE_TYPES.includes(type)) {
    errs.push(notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  }
  const present = SOURCE_FIELDS.filter((f) => spec[f] !== undefined && spec[f] !== null);
  if (present.length > 0) {
    errs.push(...validateSource(present[0], objectOf(spec[present[0]]), path));
  }
  const expected = FIELD_OF_TYPE[type];
  if (expected && !present.includes(expected)) {
    errs.push(
      required(`${path}.${expected}`, "must populate information for the given metric source"),
    );
  }
  if (present.length > 1 || (present.length === 1 && present[0] !== expected)) {
    for (const f of present.filter((f) => f !== expected)) {
      errs.push(forbidden(`${path}.${f}`, "must populate the given metric source only"));
    }
  }
  return errs;
}

function validateSource(field: string, src: Obj, parent: string): FieldError[] {
  const path = `${parent}.${field}`;
  const target = objectOf(src.target);
  const tpath = `${path}.target`;
  const errs: FieldError[] = [];
  const has = (k: string) => target[k] !== undefined && target[k] !== null;
  if (field === "object") {
    errs.push(...validateReference(objectOf(src.describedObject), `${path}.describedObject`));
  }
  if (field === "resource" || field === "containerResource") {
    if (!src.name) errs.push(required(`${path}.name`, "must specify a resource name"));
    if (field === "containerResource") {
      const c = String(src.container ?? "");
      if (c === "") errs.push(required(`${path}.container`, "must specify a container"));
      else for (const msg of isDNS1123Label(c)) errs.push(invalid(`${path}.container`, c, msg));
    }
  } else {
    errs.push(...validateMetricIdentifier(objectOf(src.metric), `${path}.metric`));
  }
  errs.push(...validateMetricTarget(target, tpath));
  if (field === "object" && !has("value") && !has("averageValue")) {
    errs.push(required(`${tpath}.averageValue`, "must set either a target value or averageValue"));
  } else if (field === "pods" && !has("averageValue")) {
    errs.push(required(`${tpath}.averageValue`, "must specify a positive target averageValue"));
  } else if (field === "external") {
    if (!has("value") && !has("averageValue")) {
      errs.push(required(
        `${tpath}.averageValue`,
        "must set either a target value for metric or a per-pod target",
      ));
    }
    if (has("value") && has("averageValue")) {
      errs.push(forbidden(
        `${tpath}.value`,
        "may not set both a target value for metric and a per-pod target",
      ));
    }
  } else if (field === "resource" || field === "containerResource") {
    if (!has("averageUtilization") && !has("averageValue")) {
      errs.push(required(
        `${tpath}.averageUtilization`,
        "must set either a target raw value or a target utilization",
      ));
    }
    if (has("averageUtilization") && has("averageValue")) {
      errs.push(forbidden(
        `${tpath}.averageValue`,
        "may not set both a target raw value and a target utilization",
      ));
    }
  }
  return errs;
}

function validateMetricIdentifier(id: Obj, path: string): FieldError[] {
  const name = String(id.name ?? "");
  if (name === "") return [required(`${path}.name`, "must specify a metric name")];
  return isValidPathSegmentName(name).map((msg) => invalid(`${path}.name`, name, msg));
}

function validateMetricTarget(t: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = String(t.type ?? "");
  if (type === "") errs.push(required(`${path}.type`, "must specify a metric target type"));
  if (!["Utilization", "Value", "AverageValue"].includes(type)) {
    errs.push(invalid(`${path}.type`, type, "must be either Utilization, Value, or AverageValue"));
  }
  for (const f of ["value", "averageValue"]) {
    if (t[f] === undefined || t[f] === null) continue;
    const q = tryParseQuantity(String(t[f]));
    if (q && q.sign() !== 1) errs.push(invalid(`${path}.${f}`, t[f], "must be positive"));
  }
  const u = t.averageUtilization;
  if (typeof u === "number" && u < 1) {
    errs.push(invalid(`${path}.averageUtilization`, u, "must be greater than 0"));
  }
  return errs;
}

function validateScalingRules(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const rules = objectOf(value);
  const errs: FieldError[] = [];
  const w = rules.stabilizationWindowSeconds;
  if (typeof w === "number" && w < 0) {
    errs.push(
      invalid(`${path}.stabilizationWindowSeconds`, w, "must be greater than or equal to zero"),
    );
  }
  if (typeof w === "number" && w > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(invalid(
      `${path}.stabilizationWindowSeconds`,
      w,
      `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
    ));
  }
  const sp = rules.selectPolicy;
  if (sp !== undefined && sp !== null && !["Disabled", "Max", "Min"].includes(String(sp))) {
    errs.push(notSupported(`${path}.selectPolicy`, sp, ["Disabled", "Max", "Min"]));
  }
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) {
    errs.push(required(`${path}.policies`, "must specify at least one Policy"));
  }
  policies.forEach((p, i) => errs.push(...validatePolicy(objectOf(p), `${path}.policies[${i}]`)));
  return errs;
}

function validatePolicy(p: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.type !== "Pods" && p.type !== "Percent") {
    errs.push(notSupported(`${path}.type`, p.type ?? "", ["Percent", "Pods"]));
  }
  const value = Number(p.value ?? 0), period = Number(p.periodSeconds ?? 0);
  if (value <= 0) errs.push(invalid(`${path}.value`, value, "must be greater than zero"));
  if (period <= 0) errs.push(invalid(`${path}.periodSeconds`, period, "must be greater than zero"));
  if (period > MAX_PERIOD_SECONDS) {
    errs.push(invalid(
      `${path}.periodSeconds`,
      period,
      `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
    ));
  }
  return errs;
}
