/**
 * The last two metric points of every node and container, and the usage computed from them,
 * as metrics-server's storage keeps them: CPU is the increase of cumulative CPU time over the
 * window between the two points (nanocores, `timestamp` the later point, `window` their
 * distance), memory the later working set. A point no newer than the last is not stored
 * twice; a restarted container (start time after the last point) starts over; a container
 * that started less than a resolution ago (and at least 10 s ago) is rated against its start
 * (zero CPU then). A pod's metrics need every container's two points; its `timestamp` and
 * `window` are those of its earliest container point.
 *
 * @module
 */
import type { MetricsBatch, MetricsPoint } from "./decode_resource_metrics.ts";

/** CPU (nanocores) and memory (bytes) usage over a window. */
export interface Usage {
  cpuNanoCores: number;
  memoryBytes: number;
  /** The later point's time (ms since the epoch). */
  timestampMs: number;
  /** The distance of the two points (ms). */
  windowMs: number;
}

/** A pod's usage by container. */
export interface PodUsage {
  containers: { name: string; usage: Usage }[];
  timestampMs: number;
  windowMs: number;
}

/** metrics-server's shortest age of a fresh container rated against its start. */
const FRESH_CONTAINER_MIN_MS = 10_000;

/** The usage between two points, or undefined when they do not make a sane rate. */
export function resourceUsage(last: MetricsPoint, prev: MetricsPoint): Usage | undefined {
  if (last.startTimeMs < prev.startTimeMs) return undefined;
  if (last.cpuSeconds < prev.cpuSeconds) return undefined;
  const windowMs = last.timestampMs - prev.timestampMs;
  if (windowMs <= 0) return undefined;
  return {
    cpuNanoCores: Math.floor(((last.cpuSeconds - prev.cpuSeconds) * 1e9) / (windowMs / 1000)),
    memoryBytes: Math.floor(last.memoryBytes),
    timestampMs: last.timestampMs,
    windowMs,
  };
}

/** See the module documentation. */
export class MetricsStorage {
  readonly #resolutionMs: number;
  #lastNodes = new Map<string, MetricsPoint>();
  #prevNodes = new Map<string, MetricsPoint>();
  #lastPods = new Map<string, Map<string, MetricsPoint>>();
  #prevPods = new Map<string, Map<string, MetricsPoint>>();

  /** `resolutionMs`: the scrape interval. */
  constructor(resolutionMs: number) {
    this.#resolutionMs = resolutionMs;
  }

  /** Stores one scrape round: every node's batch (a node absent from it is forgotten). */
  store(batches: ReadonlyMap<string, MetricsBatch>): void {
    const lastNodes = new Map<string, MetricsPoint>();
    const prevNodes = new Map<string, MetricsPoint>();
    const lastPods = new Map<string, Map<string, MetricsPoint>>();
    const prevPods = new Map<string, Map<string, MetricsPoint>>();
    for (const [nodeName, batch] of batches) {
      if (batch.node) {
        lastNodes.set(nodeName, batch.node);
        const prev = this.#previousPoint(
          batch.node,
          this.#lastNodes.get(nodeName),
          this.#prevNodes.get(nodeName),
        );
        if (prev) prevNodes.set(nodeName, prev);
      }
      for (const [pod, containers] of batch.pods) {
        if (lastPods.has(pod)) continue;
        const prevContainers = new Map<string, MetricsPoint>();
        for (const [name, point] of containers) {
          const prev = this.#previousContainerPoint(pod, name, point);
          if (prev) prevContainers.set(name, prev);
        }
        lastPods.set(pod, containers);
        if (prevContainers.size) prevPods.set(pod, prevContainers);
      }
    }
    this.#lastNodes = lastNodes, this.#prevNodes = prevNodes;
    this.#lastPods = lastPods, this.#prevPods = prevPods;
  }

  /** The point to rate `point` against: the last one if older, else the kept previous one. */
  #previousPoint(
    point: MetricsPoint,
    last: MetricsPoint | undefined,
    prev: MetricsPoint | undefined,
  ): MetricsPoint | undefined {
    if (!last) return undefined;
    if (point.timestampMs > last.timestampMs) return last;
    if (prev && prev.timestampMs < point.timestampMs) return prev;
    return undefined;
  }

  #previousContainerPoint(pod: string, name: string, point: MetricsPoint) {
    const age = point.timestampMs - point.startTimeMs;
    if (
      point.startTimeMs > 0 && age > 0 && age < this.#resolutionMs && age >= FRESH_CONTAINER_MIN_MS
    ) {
      return { ...point, timestampMs: point.startTimeMs, cpuSeconds: 0 };
    }
    const last = this.#lastPods.get(pod)?.get(name);
    // A container that restarted after the last point starts over.
    if (!last || !(point.startTimeMs < last.timestampMs)) return undefined;
    return this.#previousPoint(point, last, this.#prevPods.get(pod)?.get(name));
  }

  /** The usage of node `name`, once two points exist. */
  nodeUsage(name: string): Usage | undefined {
    const last = this.#lastNodes.get(name), prev = this.#prevNodes.get(name);
    return last && prev ? resourceUsage(last, prev) : undefined;
  }

  /** The usage of pod `<namespace>/<name>`, once every container has two points. */
  podUsage(namespace: string, name: string): PodUsage | undefined {
    const key = `${namespace}/${name}`;
    const last = this.#lastPods.get(key), prev = this.#prevPods.get(key);
    if (!last || !prev) return undefined;
    const containers: PodUsage["containers"] = [];
    let earliest: Usage | undefined;
    for (const [cname, point] of last) {
      const p = prev.get(cname);
      if (!p) return undefined;
      const usage = resourceUsage(point, p);
      if (!usage) continue;
      containers.push({ name: cname, usage });
      if (!earliest || usage.timestampMs < earliest.timestampMs) earliest = usage;
    }
    return {
      containers,
      timestampMs: earliest?.timestampMs ?? 0,
      windowMs: earliest?.windowMs ?? 0,
    };
  }
}
