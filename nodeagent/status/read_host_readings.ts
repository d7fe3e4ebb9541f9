/**
 * Reads {@link HostReadings} from the Linux host: `/sys/devices/system/cpu/online`,
 * `/proc/meminfo`, `/proc/sys/kernel/pid_max`, `/proc/loadavg` and the root directory's file
 * system.
 *
 * @module
 */
import type { HostReadings } from "./host_readings.ts";
import { filesystemStats } from "./filesystem_stats.ts";

/** Counts the CPUs of a list such as `0-3,6,8-9`. */
export function countCpuList(text: string): number {
  let n = 0;
  for (const part of text.trim().split(",")) {
    if (!part) continue;
    const [a, b] = part.split("-").map(Number);
    n += b === undefined ? 1 : b - a + 1;
  }
  return n;
}

/** Parses `/proc/meminfo` into bytes per key (values given in kB are multiplied by 1024). */
export function parseMeminfo(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^([^:]+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (m) out[m[1]] = Number(m[2]) * (line.trimEnd().endsWith("kB") ? 1024 : 1);
  }
  return out;
}

/** The total number of tasks from `/proc/loadavg` (`0.56 0.21 0.08 2/102 9003` gives 102). */
export function parseLoadavgTasks(text: string): number {
  const m = /\s\d+\/(\d+)\s/.exec(text);
  if (!m) throw new SyntaxError(`Cannot parse /proc/loadavg: ${text.trim()}`);
  return Number(m[1]);
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/**
 * Reads a snapshot of the host.
 *
 * @throws {Error} when a required reading is unavailable (not Linux, no /proc).
 */
export async function readHostReadings(rootDir: string): Promise<HostReadings> {
  const online = await readText("/sys/devices/system/cpu/online");
  const cpuCount = online ? countCpuList(online) : navigator.hardwareConcurrency;
  const meminfoText = await readText("/proc/meminfo");
  if (!meminfoText) throw new Error("Cannot read /proc/meminfo");
  const meminfo = parseMeminfo(meminfoText);
  const pidMaxText = await readText("/proc/sys/kernel/pid_max");
  const threadsMaxText = await readText("/proc/sys/kernel/threads-max");
  let pidMax = Number(pidMaxText?.trim() ?? NaN);
  const threadsMax = Number(threadsMaxText?.trim() ?? NaN);
  if (Number.isFinite(threadsMax) && threadsMax < pidMax) pidMax = threadsMax;
  const loadavg = await readText("/proc/loadavg");
  if (!loadavg || !Number.isFinite(pidMax)) {
    throw new Error("Cannot read process limits from /proc");
  }
  return {
    cpuCount,
    memoryTotalBytes: meminfo.MemTotal ?? 0,
    memoryAvailableBytes: meminfo.MemAvailable ?? meminfo.MemFree ?? 0,
    pidMax,
    processCount: parseLoadavgTasks(loadavg),
    rootFs: await filesystemStats(rootDir),
  };
}
