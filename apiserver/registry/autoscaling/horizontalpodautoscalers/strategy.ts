/**
 * HorizontalPodAutoscaler (autoscaling/v2, its stored version): defaults as Kubernetes 1.32's
 * SetDefaults_HorizontalPodAutoscaler, validation, the status subresource and kubectl's
 * columns (NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  ageOf,
  column as col,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import {
  validateHorizontalPodAutoscaler,
  validateHorizontalPodAutoscalerStatus,
} from "./validation.ts";

type Obj = Record<string, unknown>;

/** The CPU utilization an HPA without metrics targets (autoscaling.DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;

/** The default metric: average CPU utilization of 80%. */
export function defaultCpuMetric(): Obj {
  return {
    type: "Resource",
    resource: {
      name: "cpu",
      target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION },
    },
  };
}

function scaleUpRules(): Obj {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownRules(): Obj {
  return { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };
}

/** The rules' set fields over the defaults (GenerateHPAScaleUpRules/ScaleDownRules). */
function withDefaults(rules: unknown, defaults: Obj): Obj {
  const given = objectOf(rules);
  for (const f of ["selectPolicy", "stabilizationWindowSeconds", "policies"]) {
    if (given[f] !== undefined && given[f] !== null) defaults[f] = given[f];
  }
  return defaults;
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v2. */
export function setHpaV2Defaults(obj: KubeObject): void {
  const spec = objectOf(obj.spec);
  obj.spec = spec;
  spec.minReplicas ??= 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [defaultCpuMetric()];
  }
  if (spec.behavior !== undefined && spec.behavior !== null) {
    const b = objectOf(spec.behavior);
    b.scaleUp = withDefaults(b.scaleUp, scaleUpRules());
    b.scaleDown = withDefaults(b.scaleDown, scaleDownRules());
    spec.behavior = b;
  }
}

/** A quantity or count as Go's String() shows it; `<unknown>` when absent. */
function shown(v: unknown): string {
  return v === undefined || v === null ? "<unknown>" : String(v);
}

/** One metric of the TARGETS column, as kubectl's printer formats it. */
function metricCell(spec: Obj, status: Obj | undefined): string {
  const pick = (f: string) => objectOf(status?.[f]);
  const cur = (f: string) => objectOf(pick(f).current);
  const has = (f: string) => status?.[f] !== undefined && status?.[f] !== null;
  switch (spec.type) {
    case "External":
    case "Object": {
      const f = spec.type === "External" ? "external" : "object";
      const target = objectOf(objectOf(spec[f]).target);
      if (target.averageValue !== undefined) {
        const c = has(f) ? cur(f).averageValue : undefined;
        return `${shown(c)}/${shown(target.averageValue)} (avg)`;
      }
      return `${has(f) ? shown(cur(f).value) : "<unknown>"}/${shown(target.value)}`;
    }
    case "Pods": {
      const target = objectOf(objectOf(spec.pods).target);
      return `${has("pods") ? shown(cur("pods").averageValue) : "<unknown>"}/${
        shown(target.averageValue)
      }`;
    }
    case "Resource":
    case "ContainerResource": {
      const f = spec.type === "Resource" ? "resource" : "containerResource";
      const src = objectOf(spec[f]);
      const target = objectOf(src.target);
      if (target.averageValue !== undefined) {
        const c = has(f) ? shown(cur(f).averageValue) : "<unknown>";
        return `${src.name}: ${c}/${shown(target.averageValue)}`;
      }
      const u = has(f) ? cur(f).averageUtilization : undefined;
      const current = typeof u === "number" ? `${u}%` : "<unknown>";
      const t = typeof target.averageUtilization === "number"
        ? `${target.averageUtilization}%`
        : "<auto>";
      return `${src.name}: ${current}/${t}`;
    }
    default:
      return "<unknown type>";
  }
}

/** The TARGETS column: at most two metrics, then `+ N more...`. */
export function formatHpaMetrics(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return "<none>";
  const list = specs.map((s, i) => metricCell(s, statuses[i]));
  if (list.length <= 2) return list.join(", ");
  return `${list.slice(0, 2).join(", ")} + ${list.length - 2} more...`;
}

/** kubectl's HPA columns, of an autoscaling/v2 object. */
export const HPA_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Reference",
      "string",
      "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
    ),
    col(
      "Targets",
      "string",
      "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).",
    ),
    col(
      "MinPods",
      "string",
      "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.",
    ),
    col(
      "MaxPods",
      "string",
      "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
    ),
    col(
      "Replicas",
      "string",
      "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
    ),
    col(
      "Age",
      "string",
      "CreationTimestamp is a timestamp representing the server time when this object was created.",
    ),
  ],
  cells(o, now) {
    const spec = objectOf(o.spec), status = objectOf(o.status);
    const ref = objectOf(spec.scaleTargetRef);
    return [
      o.metadata?.name ?? "",
      `${ref.kind ?? ""}/${ref.name ?? ""}`,
      formatHpaMetrics(listOf(spec.metrics), listOf(status.currentMetrics)),
      typeof spec.minReplicas === "number" ? String(spec.minReplicas) : "<unset>",
      Number(spec.maxReplicas ?? 0),
      Number(status.currentReplicas ?? 0),
      ageOf(o, now),
    ];
  },
};

/** autoscaling/v2 HorizontalPodAutoscaler, the stored version. */
export const horizontalPodAutoscalerKind: KindDef = {
  group: "autoscaling",
  version: "v2",
  kind: "HorizontalPodAutoscaler",
  plural: "horizontalpodautoscalers",
  singular: "horizontalpodautoscaler",
  shortNames: ["hpa"],
  categories: ["all"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: HPA_COLUMNS,
    prepareForCreate(obj) {
      obj.status = { desiredReplicas: 0 };
      setHpaV2Defaults(obj);
    },
    prepareForUpdate: setHpaV2Defaults,
    validate: validateHorizontalPodAutoscaler,
    validateUpdate: (obj) => [
      ...validateHorizontalPodAutoscaler(obj),
      ...validateHorizontalPodAutoscalerStatus(obj),
    ],
  },
};
