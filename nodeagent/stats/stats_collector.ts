/**
 * Collects the resource usage the agent serves on `/metrics/resource` and `/stats/summary`:
 * the node's CPU time and memory from `/proc/stat` and `/proc/meminfo`, and, for every running
 * container whose host process id the runtime knows (the process runtime), the CPU time and
 * resident memory of that process and its descendants; other running containers (the CRI
 * runtime's) from the runtime's own statistics (`containerStats`, CRI ListContainerStats).
 *
 * A collection is reused for a second, so the endpoints called together scan `/proc` once;
 * the previous collection is kept for rates.
 *
 * @module
 */
import type { Clock } from "../clock/clock.ts";
import { systemClock } from "../clock/clock.ts";
import type { ContainerRuntime, ContainerStatsReading } from "../runtime/runtime.ts";
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
  runtime: Pick<ContainerRuntime, "listContainers" | "containerStats">;
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

/** A runtime's reading as usage, when it has both CPU and memory. */
function fromReading(
  r: ContainerStatsReading | undefined,
): Omit<ContainerUsage, "name" | "startTimeMs"> | undefined {
  if (!r || r.cpuSeconds === undefined || r.workingSetBytes === undefined) return undefined;
  return {
    timestampMs: r.timestampMs,
    cpuSeconds: r.cpuSeconds,
    workingSetBytes: r.workingSetBytes,
    rssBytes: r.rssBytes ?? 0,
    processCount: 0,
  };
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
    const running = (await this.#o.runtime.listContainers()).filter((c) => "running" in c.state);
    const withPid = running.filter((c) => c.pid !== undefined);
    const table = withPid.length ? await this.#processTable() : new Map<number, PidStat>();
    const readings = new Map<string, ContainerStatsReading>();
    let error = false;
    if (running.length > withPid.length && this.#o.runtime.containerStats) {
      // A runtime that cannot measure its containers still leaves the node's figures.
      const list = await this.#o.runtime.containerStats().catch(() => (error = true, []));
      for (const r of list) readings.set(r.id, r);
    }
    const pods = new Map<string, PodUsage>();
    for (const c of running) {
      const startTimeMs = "running" in c.state ? Date.parse(c.state.running.startedAt) : 0;
      const usage = c.pid !== undefined
        ? await this.#processUsage(c.pid, table, timestampMs)
        : fromReading(readings.get(c.id));
      if (!usage) {
        error ||= c.pid !== undefined || !!this.#o.runtime.containerStats;
        continue;
      }
      const pod = pods.get(c.pod.uid) ?? { ...c.pod, startTimeMs, containers: [] };
      pod.startTimeMs = Math.min(pod.startTimeMs, startTimeMs);
      pod.containers.push({ name: c.name, startTimeMs, ...usage });
      pods.set(c.pod.uid, pod);
    }
    return { node, pods: [...pods.values()], error };
  }

  /** The usage of the process tree under `pid`, or undefined when the process is gone. */
  async #processUsage(
    pid: number,
    table: ReadonlyMap<number, PidStat>,
    timestampMs: number,
  ): Promise<Omit<ContainerUsage, "name" | "startTimeMs"> | undefined> {
    const tree = processTree(table, pid);
    if (!tree.length) return undefined;
    let rss = 0;
    for (const p of tree) {
      rss += parseStatusRss(await readText(`${this.#proc}/${p.pid}/status`) ?? "");
    }
    return {
      timestampMs,
      cpuSeconds: treeCpuSeconds(tree),
      workingSetBytes: rss,
      rssBytes: rss,
      processCount: tree.length,
    };
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
