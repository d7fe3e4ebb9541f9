/**
 * Reads a node agent's (or kubelet's) `/metrics/resource` answer into one batch of metric
 * points, as metrics-server's decoder does: the node's and each container's cumulative CPU
 * time, working set, sample time (the sample's own timestamp, else the scrape time) and the
 * containers' start times. A node point missing its CPU or memory is dropped; a container
 * missing either is dropped with its pod's other containers.
 *
 * @module
 */

/** One measurement of a node or container. */
export interface MetricsPoint {
  /** When the node or container started (ms since the epoch; 0 unknown). */
  startTimeMs: number;
  /** When it was measured (ms since the epoch). */
  timestampMs: number;
  /** Cumulative CPU time in core-seconds. */
  cpuSeconds: number;
  /** Working set in bytes. */
  memoryBytes: number;
}

/** The points of one scrape of one node. */
export interface MetricsBatch {
  node?: MetricsPoint;
  /** `<namespace>/<name>` → container name → point. */
  pods: Map<string, Map<string, MetricsPoint>>;
}

interface Partial {
  startTimeMs?: number;
  timestampMs?: number;
  cpuSeconds?: number;
  memoryBytes?: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseLabels(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!text) return out;
  for (const m of text.matchAll(LABEL)) {
    out[m[1]] = m[2].replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
  }
  return out;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

function complete(p: Partial): p is Partial & Omit<MetricsPoint, "startTimeMs"> {
  return p.timestampMs !== undefined && p.cpuSeconds !== undefined &&
    p.memoryBytes !== undefined;
}

/**
 * Decodes the text; `scrapeTimeMs` stands in for samples without a timestamp.
 *
 * @throws {SyntaxError} on a line that is neither a comment nor a sample.
 */
export function decodeResourceMetrics(text: string, scrapeTimeMs: number): MetricsBatch {
  const node: Partial = {};
  const pods = new Map<string, Map<string, Partial>>();
  const container = (labels: Record<string, string>): Partial => {
    const key = `${labels.namespace ?? ""}/${labels.pod ?? ""}`;
    const byName = pods.get(key) ?? new Map<string, Partial>();
    pods.set(key, byName);
    const c = byName.get(labels.container ?? "") ?? {};
    byName.set(labels.container ?? "", c);
    return c;
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new SyntaxError(`failed parsing metrics: ${line.slice(0, 120)}`);
    const [, name, labelText, valueText, tsText] = m;
    const value = parseValue(valueText);
    const ts = tsText === undefined ? scrapeTimeMs : Number(tsText);
    switch (name) {
      case "node_cpu_usage_seconds_total":
        node.cpuSeconds = value, node.timestampMs = ts;
        break;
      case "node_memory_working_set_bytes":
        node.memoryBytes = value, node.timestampMs = ts;
        break;
      case "container_cpu_usage_seconds_total": {
        const c = container(parseLabels(labelText));
        c.cpuSeconds = value, c.timestampMs = ts;
        break;
      }
      case "container_memory_working_set_bytes": {
        const c = container(parseLabels(labelText));
        c.memoryBytes = value, c.timestampMs = ts;
        break;
      }
      case "container_start_time_seconds":
        container(parseLabels(labelText)).startTimeMs = value * 1000;
        break;
    }
  }
  const batch: MetricsBatch = { pods: new Map() };
  if (complete(node) && node.memoryBytes > 0) {
    batch.node = { ...node, startTimeMs: node.startTimeMs ?? 0 };
  }
  for (const [key, byName] of pods) {
    const points = new Map<string, MetricsPoint>();
    let ok = true;
    for (const [name, c] of byName) {
      if (!complete(c)) {
        ok = false;
        break;
      }
      points.set(name, { ...c, startTimeMs: c.startTimeMs ?? 0 });
    }
    if (ok && points.size) batch.pods.set(key, points);
  }
  return batch;
}
