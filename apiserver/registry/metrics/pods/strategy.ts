/**
 * `metrics.k8s.io/v1beta1` PodMetrics, as metrics-server serves it: read-only and namespaced
 * (get, list in a namespace or across all, label selectors), computed on every read from the
 * scraped usage of each existing pod whose containers all have two samples, carrying the pod's
 * labels; `timestamp` and `window` of its earliest container sample, and each container's
 * `usage` (cpu, memory).
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { formatTime } from "../../../../shared/api/meta/v1/time.ts";
import type { KindDef } from "../../generic/kind.ts";
import {
  metricsTableColumns,
  type ResourceMetricsDeps,
  sumUsage,
  usageList,
  windowText,
} from "../usage.ts";

async function podMetrics(d: ResourceMetricsDeps, namespace: string): Promise<KubeObject[]> {
  const pods = await d.pods().list(namespace, { plan: { mode: "latest" } });
  const created = formatTime(d.now());
  const out: KubeObject[] = [];
  for (const pod of pods.items) {
    const { name = "", namespace: ns = "" } = pod.metadata;
    const u = d.usage.podUsage(ns, name);
    if (!u) continue;
    const containers = [...u.containers].sort((a, b) => a.name.localeCompare(b.name));
    out.push({
      // metrics-server's key order: kind and apiVersion first.
      kind: "PodMetrics",
      apiVersion: "metrics.k8s.io/v1beta1",
      metadata: {
        name,
        namespace: ns,
        creationTimestamp: created,
        ...(pod.metadata.labels ? { labels: pod.metadata.labels } : {}),
      },
      timestamp: formatTime(u.timestampMs),
      window: windowText(u.windowMs),
      containers: containers.map((c) => ({ name: c.name, usage: usageList(c.usage) })),
    });
  }
  return out;
}

/** The pod's usage summed over its containers (the Table's cells). */
function podTotal(o: KubeObject): Record<string, string> {
  const containers = (o.containers ?? []) as { usage?: Record<string, string> }[];
  return sumUsage(containers.map((c) => c.usage ?? {}));
}

/** The PodMetrics kind over `deps`. */
export function podMetricsKind(deps: ResourceMetricsDeps): KindDef {
  return {
    group: "metrics.k8s.io",
    version: "v1beta1",
    kind: "PodMetrics",
    plural: "pods",
    singular: "",
    namespaced: true,
    verbs: ["get", "list"],
    computed: { list: (namespace = "") => podMetrics(deps, namespace) },
    strategy: { tableColumns: metricsTableColumns(podTotal), validate: () => [] },
  };
}
