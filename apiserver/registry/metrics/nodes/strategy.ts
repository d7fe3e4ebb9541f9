/**
 * `metrics.k8s.io/v1beta1` NodeMetrics, as metrics-server serves it: read-only (get, list with
 * label selectors), computed on every read from the scraped usage of each existing node that
 * has two samples, carrying the node's labels; `timestamp`, `window` and `usage` (cpu,
 * memory).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { formatTime } from "../../../../shared/api/meta/v1/time.ts";
import type { KindDef } from "../../generic/kind.ts";
import { metricsTableColumns, type ResourceMetricsDeps, usageList, windowText } from "../usage.ts";

async function nodeMetrics(d: ResourceMetricsDeps): Promise<KubeObject[]> {
  const nodes = await d.nodes().list("", { plan: { mode: "latest" } });
  const created = formatTime(d.now());
  const out: KubeObject[] = [];
  for (const node of nodes.items) {
    const name = node.metadata.name ?? "";
    const u = d.usage.nodeUsage(name);
    if (!u) continue;
    out.push({
      // metrics-server's key order: kind and apiVersion first.
      kind: "NodeMetrics",
      apiVersion: "metrics.k8s.io/v1beta1",
      metadata: {
        name,
        creationTimestamp: created,
        ...(node.metadata.labels ? { labels: node.metadata.labels } : {}),
      },
      timestamp: formatTime(u.timestampMs),
      window: windowText(u.windowMs),
      usage: usageList(u),
    });
  }
  return out;
}

/** The NodeMetrics kind over `deps`. */
export function nodeMetricsKind(deps: ResourceMetricsDeps): KindDef {
  return {
    group: "metrics.k8s.io",
    version: "v1beta1",
    kind: "NodeMetrics",
    plural: "nodes",
    singular: "",
    namespaced: false,
    verbs: ["get", "list"],
    computed: { list: () => nodeMetrics(deps) },
    strategy: {
      tableColumns: metricsTableColumns((o) => (o.usage ?? {}) as Record<string, string>),
      validate: () => [],
    },
  };
}
