/**
 * The agent's own `/metrics` in the Prometheus text format: the standard process metrics
 * (`process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_start_time_seconds`,
 * `process_open_fds`) read from `/proc/self`, and the kubelet's `kubelet_node_name`,
 * `kubelet_running_pods` and `kubelet_running_containers`.
 *
 * @module
 */
import { formatFloat, formatLabelPairs } from "../../shared/metrics/exposition_format.ts";
import { parseBootTime, parsePidStat, parseStatusRss, USER_HZ } from "./proc_parse.ts";

/** What the agent reports about itself besides its process. */
export interface AgentCounts {
  nodeName: string;
  /** Pods with a running container. */
  runningPods: number;
  /** Containers by state (`running`, `exited`, ...). */
  containersByState: Record<string, number>;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function countEntries(dir: string): Promise<number | undefined> {
  try {
    let n = 0;
    for await (const _ of Deno.readDir(dir)) n++;
    return n;
  } catch {
    return undefined;
  }
}

function metric(name: string, help: string, type: string, lines: string[]): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${lines.map((l) => l + "\n").join("")}`;
}

/** Renders `/metrics` (the process metrics are left out where `/proc/self` cannot be read). */
export async function renderAgentMetrics(counts: AgentCounts, procRoot = "/proc"): Promise<string> {
  let out = "";
  const containers = Object.entries(counts.containersByState).sort(([a], [b]) => a.localeCompare(b))
    .map(([state, n]) =>
      `kubelet_running_containers{${formatLabelPairs([["container_state", state]])}} ${n}`
    );
  out += metric(
    "kubelet_node_name",
    "[ALPHA] The node's name. The count is always 1.",
    "gauge",
    [`kubelet_node_name{${formatLabelPairs([["node", counts.nodeName]])}} 1`],
  );
  out += metric(
    "kubelet_running_containers",
    "[ALPHA] Number of containers currently running",
    "gauge",
    containers,
  );
  out += metric(
    "kubelet_running_pods",
    "[ALPHA] Number of pods that have a running pod sandbox",
    "gauge",
    [`kubelet_running_pods ${counts.runningPods}`],
  );
  const stat = await readText(`${procRoot}/self/stat`);
  const status = await readText(`${procRoot}/self/status`);
  const boot = parseBootTime(await readText(`${procRoot}/stat`) ?? "");
  if (!stat || !status) return out;
  const self = parsePidStat(stat);
  out += metric(
    "process_cpu_seconds_total",
    "Total user and system CPU time spent in seconds.",
    "counter",
    [`process_cpu_seconds_total ${formatFloat((self.utime + self.stime) / USER_HZ)}`],
  );
  const fds = await countEntries(`${procRoot}/self/fd`);
  if (fds !== undefined) {
    out += metric("process_open_fds", "Number of open file descriptors.", "gauge", [
      `process_open_fds ${fds}`,
    ]);
  }
  out += metric(
    "process_resident_memory_bytes",
    "Resident memory size in bytes.",
    "gauge",
    [`process_resident_memory_bytes ${formatFloat(parseStatusRss(status))}`],
  );
  if (boot !== undefined) {
    out += metric(
      "process_start_time_seconds",
      "Start time of the process since unix epoch in seconds.",
      "gauge",
      [`process_start_time_seconds ${formatFloat(boot + self.starttime / USER_HZ)}`],
    );
  }
  return out;
}
