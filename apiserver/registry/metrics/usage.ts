/**
 * What the resource metrics kinds (`metrics.k8s.io/v1beta1` NodeMetrics and PodMetrics) read
 * usage from, and how they render it: CPU in nanocores as a DecimalSI quantity, memory in
 * bytes as a BinarySI quantity, `window` as a Go duration, and metrics-server's Table columns
 * (Name, one column per resource in name order, Window).
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { Quantity } from "../../../shared/api/quantity.ts";
import { formatDuration } from "../../../shared/time/duration.ts";
import type { Store } from "../generic/store.ts";
import type { TableColumns } from "../generic/kind.ts";
import { NAME_COLUMN } from "../generic/table_columns.ts";

/** CPU and memory usage over a window. */
export interface ResourceUsage {
  cpuNanoCores: number;
  memoryBytes: number;
  /** When the later sample was taken (ms since the epoch). */
  timestampMs: number;
  /** The distance between the two samples (ms). */
  windowMs: number;
}

/** The usage the API reports (the metrics scraper's storage). */
export interface ResourceUsageSource {
  /** A node's usage, once known. */
  nodeUsage(name: string): ResourceUsage | undefined;
  /** A pod's usage by container, once every container's is known. */
  podUsage(namespace: string, name: string):
    | {
      containers: { name: string; usage: ResourceUsage }[];
      timestampMs: number;
      windowMs: number;
    }
    | undefined;
}

/** What the kinds are built from. */
export interface ResourceMetricsDeps {
  usage: ResourceUsageSource;
  /** The Node store (metrics exist for existing nodes, with their labels). */
  nodes: () => Store;
  /** The Pod store. */
  pods: () => Store;
  /** The current time (creationTimestamp, as metrics-server stamps it). */
  now: () => number;
}

/** `usage` of one window: `cpu` and `memory` quantities. */
export function usageList(u: Pick<ResourceUsage, "cpuNanoCores" | "memoryBytes">) {
  return {
    cpu: new Quantity(BigInt(Math.max(0, Math.floor(u.cpuNanoCores))), 9, "DecimalSI").toString(),
    memory: new Quantity(BigInt(Math.max(0, Math.floor(u.memoryBytes))), 0, "BinarySI").toString(),
  };
}

/** A window as metav1.Duration writes it. */
export function windowText(ms: number): string {
  return formatDuration(ms);
}

/** The sum of quantities by resource (a pod's containers). */
export function sumUsage(lists: readonly Record<string, string>[]): Record<string, string> {
  const out: Record<string, Quantity> = {};
  for (const l of lists) {
    for (const [k, v] of Object.entries(l)) {
      const q = Quantity.parse(v);
      out[k] = out[k] ? out[k].add(q) : q;
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, q]) => [k, q.toString()]));
}

/** metrics-server's Table: Name, cpu, memory, Window. */
export function metricsTableColumns(
  usageOf: (o: KubeObject) => Record<string, string>,
): TableColumns {
  const quantity = (name: string) => ({
    name,
    type: "string",
    format: "quantity",
    description: "",
    priority: 0,
  });
  return {
    columns: [
      { ...NAME_COLUMN, description: "Name of the resource" },
      quantity("cpu"),
      quantity("memory"),
      { name: "Window", type: "string", format: "duration", description: "", priority: 0 },
    ],
    cells(o) {
      const u = usageOf(o);
      return [o.metadata?.name ?? "", u.cpu ?? "", u.memory ?? "", String(o.window ?? "")];
    },
  };
}
