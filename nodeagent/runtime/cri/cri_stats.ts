/**
 * CRI `ListContainerStats` answers as the agent's {@link ContainerStatsReading}s: cumulative
 * CPU (`usageCoreNanoSeconds`) in core-seconds, `workingSetBytes` and `rssBytes`, with the
 * later of the CPU and memory timestamps (nanoseconds in CRI).
 *
 * @module
 */
import type { ContainerStatsReading } from "../runtime.ts";

/** One decoded `ContainerStats` message (64-bit integers as decimal strings). */
export interface CriContainerStats {
  attributes?: { id?: string };
  cpu?: { timestamp?: string; usageCoreNanoSeconds?: { value?: string } };
  memory?: {
    timestamp?: string;
    workingSetBytes?: { value?: string };
    rssBytes?: { value?: string };
  };
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The readings of the containers the runtime reported with an id and a time. */
export function criStatsReadings(stats: readonly CriContainerStats[]): ContainerStatsReading[] {
  const out: ContainerStatsReading[] = [];
  for (const s of stats) {
    const id = s.attributes?.id;
    const tsNs = Math.max(num(s.cpu?.timestamp) ?? 0, num(s.memory?.timestamp) ?? 0);
    if (!id || tsNs <= 0) continue;
    const cpuNs = s.cpu?.usageCoreNanoSeconds ? num(s.cpu.usageCoreNanoSeconds.value) : undefined;
    const ws = s.memory?.workingSetBytes ? num(s.memory.workingSetBytes.value) : undefined;
    const rss = s.memory?.rssBytes ? num(s.memory.rssBytes.value) : undefined;
    out.push({
      id,
      timestampMs: Math.floor(tsNs / 1e6),
      ...(cpuNs !== undefined ? { cpuSeconds: cpuNs / 1e9 } : {}),
      ...(ws !== undefined ? { workingSetBytes: ws } : {}),
      ...(rss !== undefined ? { rssBytes: rss } : {}),
    });
  }
  return out;
}
