/**
 * Collects the resource usage the agent serves on `/metrics/resource` and `/stats/summary`:
 * the node's CPU time and memory from `/proc/stat` and `/proc/meminfo`, and, for every running
 * container whose host process id the runtime knows (the process runtime), the CPU time and
 * resident memory of that process and its descendants. Containers without a host pid (the CRI
 * runtime, whose containers live in their own PID namespaces) are not reported.
 *
 * A collection is reused for a second, so the endpoints called together scan `/proc` once;
 * the previous collection is kept for rates.
 *
 * @module
 */
import type { Clock } from "../clock/clock.ts";
import { systemClock } from "../clock/clock.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { parseMeminfo } from "../status/read_host_readings.ts";
import {
  type NodeMemory,
  nodeMemory,
  parseBootTime,
  parseCpuBusyTicks,
  parsePidStat,
  parseStatusRss,
  type PidStat,
  processTree,
  treeCpuSeconds,
  USER_HZ,
} from "./proc_parse.ts";

/** Usage of one container at one time. */
export interface ContainerUsage {
  name: string;
  /** When the container started (ms since the epoch). */
  startTimeMs: number;
  /** When it was measured. */
  timestampMs: number;
  /** Cumulative CPU time in core-seconds. */
  cpuSeconds: number;
  /** Working set (the processes' resident memory) in bytes. */
  workingSetBytes: number;
  /** Resident memory in bytes. */
  rssBytes: number;
  /** Processes in the container's tree. */
  processCount: number;
}

/** Usage of one pod's containers. */
export interface PodUsage {
  namespace: string;
  name: string;
  uid: string;
  /** The earliest start of its containers. */
  startTimeMs: number;
  containers: ContainerUsage[];
}

/** Usage of the node. */
export interface NodeUsage {
  /** When it was measured. */
  timestampMs: number;
  /** Boot time (ms since the epoch). */
  startTimeMs: number;
  /** Cumulative busy CPU time of all CPUs in core-seconds. */
  cpuSeconds: number;
  memory: NodeMemory;
}

/** One collection. */
export interface StatsSnapshot {
  node: NodeUsage;
  pods: PodUsage[];
  /** Whether some container could not be measured. */
  error: boolean;
}

/** Options of {@link StatsCollector}. */
export interface StatsCollectorOptions {
  runtime: Pick<ContainerRuntime, "listContainers">;
  clock?: Clock;
  /** Where procfs is mounted (default `/proc`; tests point it at a fixture). */
  procRoot?: string;
}

/** How long a collection is reused. */
const REUSE_MS = 1000;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** See the module documentation. */
export class StatsCollector {
  readonly #o: StatsCollectorOptions;
  readonly #clock: Clock;
  readonly #proc: string;
  #last?: StatsSnapshot;
  #previous?: StatsSnapshot;
  #pending?: Promise<StatsSnapshot>;

  constructor(opts: StatsCollectorOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#proc = (opts.procRoot ?? "/proc").replace(/\/+$/, "");
  }

  /** The latest collection (fresh, or at most a second old) and the one before it. */
  async collect(): Promise<{ current: StatsSnapshot; previous?: StatsSnapshot }> {
    const last = this.#last;
    if (last && this.#clock.now() - last.node.timestampMs < REUSE_MS) {
      return { current: last, previous: this.#previous };
    }
    this.#pending ??= this.#collect().finally(() => (this.#pending = undefined));
    const current = await this.#pending;
    if (current !== this.#last) {
      this.#previous = this.#last;
      this.#last = current;
    }
    return { current, previous: this.#previous };
  }

  async #collect(): Promise<StatsSnapshot> {
    const statText = await readText(`${this.#proc}/stat`);
    const meminfoText = await readText(`${this.#proc}/meminfo`);
    if (!statText || !meminfoText) throw new Error(`Cannot read ${this.#proc}/stat and meminfo`);
    const timestampMs = this.#clock.now();
    const node: NodeUsage = {
      timestampMs,
      startTimeMs: (parseBootTime(statText) ?? 0) * 1000,
      cpuSeconds: parseCpuBusyTicks(statText) / USER_HZ,
      memory: nodeMemory(parseMeminfo(meminfoText)),
    };
    const containers = (await this.#o.runtime.listContainers())
      .filter((c) => "running" in c.state && c.pid !== undefined);
    const table = containers.length ? await this.#processTable() : new Map<number, PidStat>();
    const pods = new Map<string, PodUsage>();
    let error = false;
    for (const c of containers) {
      const tree = processTree(table, c.pid!);
      if (!tree.length) {
        error = true;
        continue;
      }
      const startTimeMs = "running" in c.state ? Date.parse(c.state.running.startedAt) : 0;
      let rss = 0;
      for (const p of tree) {
        rss += parseStatusRss(await readText(`${this.#proc}/${p.pid}/status`) ?? "");
      }
      const usage: ContainerUsage = {
        name: c.name,
        startTimeMs,
        timestampMs,
        cpuSeconds: treeCpuSeconds(tree),
        workingSetBytes: rss,
        rssBytes: rss,
        processCount: tree.length,
      };
      const pod = pods.get(c.pod.uid) ??
        { ...c.pod, startTimeMs, containers: [] };
      pod.startTimeMs = Math.min(pod.startTimeMs, startTimeMs);
      pod.containers.push(usage);
      pods.set(c.pod.uid, pod);
    }
    return { node, pods: [...pods.values()], error };
  }

  /** Every process of procfs by pid (processes that exit while read are skipped). */
  async #processTable(): Promise<Map<number, PidStat>> {
    const table = new Map<number, PidStat>();
    for await (const entry of Deno.readDir(this.#proc)) {
      if (!/^\d+$/.test(entry.name)) continue;
      const text = await readText(`${this.#proc}/${entry.name}/stat`);
      if (!text) continue;
      try {
        const p = parsePidStat(text);
        table.set(p.pid, p);
      } catch {
        // a malformed or vanished entry
      }
    }
    return table;
  }
}
