/**
 * The kubelet Summary API (`GET /stats/summary`, `stats/v1alpha1` Summary) from collections:
 * the node's and each measured pod's and container's CPU (`usageCoreNanoSeconds`, and
 * `usageNanoCores` once two collections exist) and memory (`workingSetBytes`, `rssBytes`,
 * `usageBytes`, the node's `availableBytes`), with `process_stats`. Network, file system and
 * volume statistics are not collected and are left out, as the kubelet leaves out what its
 * providers do not give.
 *
 * @module
 */
import { formatTime } from "../../shared/api/meta/v1/time.ts";
import type { ContainerUsage, StatsSnapshot } from "./stats_collector.ts";

type Json = Record<string, unknown>;

function nanos(seconds: number): number {
  return Math.round(seconds * 1e9);
}

/** CPUStats: cumulative nanoseconds, and the rate since `prev` (nanocores) when known. */
function cpuStats(timeMs: number, seconds: number, prev?: { ms: number; seconds: number }): Json {
  const out: Json = { time: formatTime(timeMs) };
  if (prev && timeMs > prev.ms && seconds >= prev.seconds) {
    out.usageNanoCores = Math.round(((seconds - prev.seconds) * 1e9) / ((timeMs - prev.ms) / 1000));
  }
  out.usageCoreNanoSeconds = nanos(seconds);
  return out;
}

function containerPrev(
  previous: StatsSnapshot | undefined,
  uid: string,
  c: ContainerUsage,
): { ms: number; seconds: number } | undefined {
  const p = previous?.pods.find((p) => p.uid === uid)?.containers.find((x) => x.name === c.name);
  // A restarted container starts counting again: no rate across the restart.
  if (!p || p.startTimeMs !== c.startTimeMs) return undefined;
  return { ms: p.timestampMs, seconds: p.cpuSeconds };
}

/** Builds the Summary of `current` (rates against `previous`) for node `nodeName`. */
export function buildSummary(
  nodeName: string,
  current: StatsSnapshot,
  previous?: StatsSnapshot,
): Json {
  const n = current.node;
  const node: Json = {
    nodeName,
    startTime: formatTime(n.startTimeMs),
    cpu: cpuStats(
      n.timestampMs,
      n.cpuSeconds,
      previous && { ms: previous.node.timestampMs, seconds: previous.node.cpuSeconds },
    ),
    memory: {
      time: formatTime(n.timestampMs),
      availableBytes: n.memory.availableBytes,
      usageBytes: n.memory.usageBytes,
      workingSetBytes: n.memory.workingSetBytes,
    },
  };
  const pods = current.pods.map((p) => {
    let cpu = 0, mem = 0, rss = 0, procs = 0, ts = 0;
    let prevCpu = 0, prevTs = 0, prevComplete = true;
    const containers = p.containers.map((c) => {
      const prev = containerPrev(previous, p.uid, c);
      cpu += c.cpuSeconds, mem += c.workingSetBytes, rss += c.rssBytes, procs += c.processCount;
      ts = Math.max(ts, c.timestampMs);
      if (prev) prevCpu += prev.seconds, prevTs = Math.max(prevTs, prev.ms);
      else prevComplete = false;
      return {
        name: c.name,
        startTime: formatTime(c.startTimeMs),
        cpu: cpuStats(c.timestampMs, c.cpuSeconds, prev),
        memory: memoryStats(c.timestampMs, c.workingSetBytes, c.rssBytes),
      };
    });
    return {
      podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
      startTime: formatTime(p.startTimeMs),
      containers,
      cpu: cpuStats(ts, cpu, prevComplete ? { ms: prevTs, seconds: prevCpu } : undefined),
      memory: memoryStats(ts, mem, rss),
      process_stats: { process_count: procs },
    };
  });
  return { node, pods };
}

function memoryStats(timeMs: number, workingSet: number, rss: number): Json {
  return {
    time: formatTime(timeMs),
    usageBytes: workingSet,
    workingSetBytes: workingSet,
    rssBytes: rss,
  };
}
