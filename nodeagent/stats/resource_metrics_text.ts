/**
 * The kubelet's `/metrics/resource` endpoint in the Prometheus text format 0.0.4: the STABLE
 * resource metrics of kube 1.32 (node, pod and container CPU time and working set, container
 * start times, `resource_scrape_error`; its old name `scrape_error`, deprecated in 1.29, is
 * hidden in 1.32), each sample with the time it was measured (milliseconds), as
 * metrics-server reads them.
 *
 * @module
 */
import { formatFloat, formatLabelPairs } from "../../shared/metrics/exposition_format.ts";
import type { StatsSnapshot } from "./stats_collector.ts";

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge";
  samples: string[];
}

function family(name: string, help: string, type: Family["type"]): Family {
  return { name, help, type, samples: [] };
}

function sample(f: Family, labels: [string, string][], value: number, ms?: number): void {
  const l = labels.length ? `{${formatLabelPairs(labels)}}` : "";
  f.samples.push(`${f.name}${l} ${formatFloat(value)}${ms === undefined ? "" : ` ${ms}`}`);
}

/** Renders `/metrics/resource` from a collection (`failed`: the collection itself failed). */
export function renderResourceMetrics(s: StatsSnapshot | undefined, failed = false): string {
  const cCpu = family(
    "container_cpu_usage_seconds_total",
    "[STABLE] Cumulative cpu time consumed by the container in core-seconds",
    "counter",
  );
  const cMem = family(
    "container_memory_working_set_bytes",
    "[STABLE] Current working set of the container in bytes",
    "gauge",
  );
  const cStart = family(
    "container_start_time_seconds",
    "[STABLE] Start time of the container since unix epoch in seconds",
    "gauge",
  );
  const nCpu = family(
    "node_cpu_usage_seconds_total",
    "[STABLE] Cumulative cpu time consumed by the node in core-seconds",
    "counter",
  );
  const nMem = family(
    "node_memory_working_set_bytes",
    "[STABLE] Current working set of the node in bytes",
    "gauge",
  );
  const pCpu = family(
    "pod_cpu_usage_seconds_total",
    "[STABLE] Cumulative cpu time consumed by the pod in core-seconds",
    "counter",
  );
  const pMem = family(
    "pod_memory_working_set_bytes",
    "[STABLE] Current working set of the pod in bytes",
    "gauge",
  );
  const errHelp = "1 if there was an error while getting container metrics, 0 otherwise";
  const rErr = family("resource_scrape_error", `[STABLE] ${errHelp}`, "gauge");
  if (s) {
    sample(nCpu, [], s.node.cpuSeconds, s.node.timestampMs);
    sample(nMem, [], s.node.memory.workingSetBytes, s.node.timestampMs);
    const pods = [...s.pods].sort((a, b) =>
      a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name)
    );
    for (const p of pods) {
      const podLabels: [string, string][] = [["namespace", p.namespace], ["pod", p.name]];
      let cpu = 0, mem = 0, ts = 0;
      for (const c of [...p.containers].sort((a, b) => a.name.localeCompare(b.name))) {
        const labels: [string, string][] = [["container", c.name], ...podLabels];
        sample(cCpu, labels, c.cpuSeconds, c.timestampMs);
        sample(cMem, labels, c.workingSetBytes, c.timestampMs);
        sample(cStart, labels, c.startTimeMs / 1000, c.startTimeMs);
        cpu += c.cpuSeconds;
        mem += c.workingSetBytes;
        ts = Math.max(ts, c.timestampMs);
      }
      sample(pCpu, podLabels, cpu, ts);
      sample(pMem, podLabels, mem, ts);
    }
  }
  const error = failed || !!s?.error ? 1 : 0;
  sample(rErr, [], error);
  return [cCpu, cMem, cStart, nCpu, nMem, pCpu, pMem, rErr]
    .map((f) =>
      `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n` +
      f.samples.map((l) => `${l}\n`).join("")
    )
    .join("");
}
