/**
 * Conversion of HorizontalPodAutoscaler between autoscaling/v2 (stored) and autoscaling/v1,
 * as Kubernetes 1.32 converts it (pkg/apis/autoscaling/v1/conversion.go): v1 carries the CPU
 * utilization target and current value in its own fields, and keeps everything v2 has beyond
 * them in annotations, so a v1 client's read-modify-write loses nothing: the other metrics
 * (`autoscaling.alpha.kubernetes.io/metrics`, in v1's metric format), the current metrics
 * (`.../current-metrics`), the conditions (`.../conditions`) and the behavior (`.../behavior`).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { cloneValue } from "../../generic/clone_value.ts";
import { listOf, objectOf } from "../../generic/table_columns.ts";
import { defaultCpuMetric } from "./strategy.ts";

type Obj = Record<string, unknown>;

/** The annotations v1 keeps v2's other fields in. */
export const METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics";
export const CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics";
export const CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions";
export const BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior";
const ROUND_TRIP = [
  METRICS_ANNOTATION,
  CURRENT_METRICS_ANNOTATION,
  CONDITIONS_ANNOTATION,
  BEHAVIOR_ANNOTATION,
];

/** `value` without its undefined (and null) fields, for JSON as Go's omitempty writes it. */
function compact(value: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

const isCpu = (m: Obj, f: "target" | "current") =>
  m.type === "Resource" && objectOf(m.resource).name === "cpu" &&
  typeof objectOf(objectOf(m.resource)[f]).averageUtilization === "number";

/** A v2 MetricSpec in autoscaling/v1's MetricSpec form. */
function metricSpecToV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  const src = (f: string) => objectOf(m[f]);
  const target = (f: string) => objectOf(src(f).target);
  const id = (f: string) => objectOf(src(f).metric);
  if (m.object) {
    out.object = compact({
      target: src("object").describedObject,
      metricName: id("object").name,
      targetValue: target("object").value ?? "0",
      selector: id("object").selector,
      averageValue: target("object").averageValue,
    });
  }
  if (m.pods) {
    out.pods = compact({
      metricName: id("pods").name,
      targetAverageValue: target("pods").averageValue ?? "0",
      selector: id("pods").selector,
    });
  }
  for (const f of ["resource", "containerResource"]) {
    if (!m[f]) continue;
    out[f] = compact({
      name: src(f).name,
      targetAverageUtilization: target(f).averageUtilization,
      targetAverageValue: target(f).averageValue,
      container: src(f).container,
    });
  }
  if (m.external) {
    out.external = compact({
      metricName: id("external").name,
      metricSelector: id("external").selector,
      targetValue: target("external").value,
      targetAverageValue: target("external").averageValue,
    });
  }
  return out;
}

/** An autoscaling/v1 MetricSpec (from the annotation) in v2's form. */
function metricSpecFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  const o = objectOf(m.object), p = objectOf(m.pods), e = objectOf(m.external);
  if (m.object) {
    out.object = {
      describedObject: o.target,
      target: compact({
        type: o.averageValue === undefined ? "Value" : "AverageValue",
        value: o.targetValue ?? "0",
        averageValue: o.averageValue,
      }),
      metric: compact({ name: o.metricName, selector: o.selector }),
    };
  }
  if (m.pods) {
    out.pods = {
      metric: compact({ name: p.metricName, selector: p.selector }),
      target: { type: "AverageValue", averageValue: p.targetAverageValue ?? "0" },
    };
  }
  for (const f of ["resource", "containerResource"]) {
    if (!m[f]) continue;
    const r = objectOf(m[f]);
    const util = r.targetAverageUtilization;
    out[f] = compact({
      name: r.name,
      target: compact({
        type: util === undefined || util === null ? "AverageValue" : "Utilization",
        averageValue: r.targetAverageValue,
        averageUtilization: util,
      }),
      container: r.container,
    });
  }
  if (m.external) {
    out.external = {
      metric: compact({ name: e.metricName, selector: e.metricSelector }),
      target: compact({
        type: e.targetValue === undefined ? "AverageValue" : "Value",
        value: e.targetValue,
        averageValue: e.targetAverageValue,
      }),
    };
  }
  return out;
}

/** A v2 MetricStatus in autoscaling/v1's form. */
function metricStatusToV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  const src = (f: string) => objectOf(m[f]);
  const cur = (f: string) => objectOf(src(f).current);
  const id = (f: string) => objectOf(src(f).metric);
  if (m.object) {
    out.object = compact({
      target: src("object").describedObject,
      metricName: id("object").name,
      currentValue: cur("object").value ?? "0",
      selector: id("object").selector,
      averageValue: cur("object").averageValue,
    });
  }
  if (m.pods) {
    out.pods = compact({
      metricName: id("pods").name,
      currentAverageValue: cur("pods").averageValue ?? "0",
      selector: id("pods").selector,
    });
  }
  for (const f of ["resource", "containerResource"]) {
    if (!m[f]) continue;
    out[f] = compact({
      name: src(f).name,
      currentAverageUtilization: cur(f).averageUtilization,
      currentAverageValue: cur(f).averageValue ?? "0",
      container: src(f).container,
    });
  }
  if (m.external) {
    out.external = compact({
      metricName: id("external").name,
      metricSelector: id("external").selector,
      currentValue: cur("external").value ?? "0",
      currentAverageValue: cur("external").averageValue,
    });
  }
  return out;
}

/** An autoscaling/v1 MetricStatus (from the annotation) in v2's form. */
function metricStatusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type };
  const o = objectOf(m.object), p = objectOf(m.pods), e = objectOf(m.external);
  if (m.object) {
    out.object = {
      metric: compact({ name: o.metricName, selector: o.selector }),
      current: compact({ value: o.currentValue ?? "0", averageValue: o.averageValue }),
      describedObject: o.target,
    };
  }
  if (m.pods) {
    out.pods = {
      metric: compact({ name: p.metricName, selector: p.selector }),
      current: { averageValue: p.currentAverageValue ?? "0" },
    };
  }
  for (const f of ["resource", "containerResource"]) {
    if (!m[f]) continue;
    const r = objectOf(m[f]);
    out[f] = compact({
      name: r.name,
      current: compact({
        averageValue: r.currentAverageValue ?? "0",
        averageUtilization: r.currentAverageUtilization,
      }),
      container: r.container,
    });
  }
  if (m.external) {
    out.external = {
      metric: compact({ name: e.metricName, selector: e.metricSelector }),
      current: compact({ value: e.currentValue ?? "0", averageValue: e.currentAverageValue }),
    };
  }
  return out;
}

/** The metadata of a converted object, its round-trip annotations dropped. */
function metadataWithout(meta: KubeObject["metadata"], drop: readonly string[]) {
  const out = cloneValue(meta ?? {});
  if (!out.annotations) return out;
  for (const k of drop) delete out.annotations[k];
  if (Object.keys(out.annotations).length === 0) delete out.annotations;
  return out;
}

/** A stored autoscaling/v2 HPA in the autoscaling/v1 form. */
export function hpaV2ToV1(obj: KubeObject): KubeObject {
  const spec = objectOf(obj.spec), status = objectOf(obj.status);
  const metrics = listOf(spec.metrics), current = listOf(status.currentMetrics);
  const metadata = metadataWithout(obj.metadata, ROUND_TRIP);
  const cpu = metrics.find((m) => m.type === "Resource" && objectOf(m.resource).name === "cpu");
  const cpuNow = current.filter((m) => isCpu(m, "current")).pop();
  const annotations: Record<string, string> = {};
  const others = metrics.filter((m) => !isCpu(m, "target")).map(metricSpecToV1);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (current.length > 0) {
    annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(metricStatusToV1));
  }
  const conditions = listOf(status.conditions);
  if (conditions.length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
  if (spec.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(goBehavior(spec.behavior));
  if (Object.keys(annotations).length > 0) {
    metadata.annotations = { ...metadata.annotations, ...annotations };
  }
  return {
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata,
    spec: compact({
      scaleTargetRef: cloneValue(spec.scaleTargetRef ?? {}),
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: cpu && objectOf(objectOf(cpu.resource).target)
        .averageUtilization,
    }),
    status: compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpuNow &&
        objectOf(objectOf(cpuNow.resource).current).averageUtilization,
    }),
  };
}

/** The JSON list in annotation `key` (400 when it is not JSON of a list). */
function annotationList(annotations: Record<string, string> | undefined, key: string) {
  const text = annotations?.[key];
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text);
    if (Array.isArray(v)) return v.map(objectOf);
  } catch { /* reported below */ }
  throw StatusError.badRequest(`annotation ${key}: not a JSON list`);
}

/** An autoscaling/v1 HPA in the stored autoscaling/v2 form. */
export function hpaV1ToV2(obj: KubeObject): KubeObject {
  const spec = objectOf(obj.spec), status = objectOf(obj.status);
  const ann = obj.metadata?.annotations;
  const cpu = spec.targetCPUUtilizationPercentage;
  let metrics: Obj[] = typeof cpu === "number"
    ? [{ ...defaultCpuMetric(), resource: cpuResource("target", cpu) }]
    : [];
  const others = annotationList(ann, METRICS_ANNOTATION);
  if (others) metrics = [...others.map(metricSpecFromV1), ...metrics];
  if (metrics.length === 0) metrics = [defaultCpuMetric()];
  const cpuNow = status.currentCPUUtilizationPercentage;
  let current: Obj[] | undefined = typeof cpuNow === "number"
    ? [{ type: "Resource", resource: cpuResource("current", cpuNow) }]
    : undefined;
  const annotated = annotationList(ann, CURRENT_METRICS_ANNOTATION);
  if (annotated) current = annotated.map(metricStatusFromV1);
  const behavior = ann?.[BEHAVIOR_ANNOTATION] === undefined
    ? undefined
    : behaviorOf(ann[BEHAVIOR_ANNOTATION]);
  const currentReplicas = status.currentReplicas;
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: metadataWithout(obj.metadata, ROUND_TRIP),
    spec: compact({
      scaleTargetRef: cloneValue(spec.scaleTargetRef ?? {}),
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      metrics,
      behavior,
    }),
    status: compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: currentReplicas === 0 ? undefined : currentReplicas,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentMetrics: current,
      conditions: annotationList(ann, CONDITIONS_ANNOTATION),
    }),
  };
}

/**
 * The behavior as Kubernetes writes it in the annotation: Go's JSON of its internal type, which
 * has no JSON tags, so every key is the Go field name and unset pointers are null.
 */
function goBehavior(behavior: unknown): Obj {
  const rules = (r: unknown) => {
    if (r === undefined || r === null) return null;
    const o = objectOf(r);
    const policies = Array.isArray(o.policies)
      ? listOf(o.policies).map((p) => ({
        Type: p.type ?? "",
        Value: p.value ?? 0,
        PeriodSeconds: p.periodSeconds ?? 0,
      }))
      : null;
    return {
      StabilizationWindowSeconds: o.stabilizationWindowSeconds ?? null,
      SelectPolicy: o.selectPolicy ?? null,
      Policies: policies,
    };
  };
  const b = objectOf(behavior);
  return { ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) };
}

/**
 * The behavior in the annotation, read as Go's encoding/json reads it: keys match the fields
 * case-insensitively, nulls are unset (400 when it is not JSON of an object).
 */
function behaviorOf(text: string): Obj {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch { /* reported below */ }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw StatusError.badRequest(`annotation ${BEHAVIOR_ANNOTATION}: not a JSON object`);
  }
  const field = (o: unknown, name: string) => {
    const entries = Object.entries(objectOf(o));
    return entries.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1] ?? undefined;
  };
  const rules = (r: unknown) => {
    if (r === undefined || r === null) return undefined;
    const policies = field(r, "policies");
    return compact({
      stabilizationWindowSeconds: field(r, "stabilizationWindowSeconds"),
      selectPolicy: field(r, "selectPolicy"),
      policies: Array.isArray(policies)
        ? policies.map((p) =>
          compact({
            type: field(p, "type"),
            value: field(p, "value"),
            periodSeconds: field(p, "periodSeconds"),
          })
        )
        : undefined,
    });
  };
  return compact({
    scaleUp: rules(field(parsed, "scaleUp")),
    scaleDown: rules(field(parsed, "scaleDown")),
  });
}

function cpuResource(field: "target" | "current", utilization: number): Obj {
  const value = field === "target"
    ? { type: "Utilization", averageUtilization: utilization }
    : { averageUtilization: utilization };
  return { name: "cpu", [field]: value };
}
