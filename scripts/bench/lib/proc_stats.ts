/**
 * Reads a process's CPU time and memory from Linux `/proc`, so a benchmark can report what a
 * server subprocess spent apart from its clients.
 *
 * @module
 */

/** CPU and memory of one process at one moment. */
export interface ProcStats {
  /** User plus system CPU time consumed so far, in seconds. */
  cpuSeconds: number;
  /** Resident set size now, in bytes. */
  rssBytes: number;
  /** Peak resident set size so far (VmHWM), in bytes. */
  peakRssBytes: number;
}

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/**
 * Reads `/proc/<pid>/stat` and `/proc/<pid>/status`. Returns undefined where `/proc` is
 * unavailable or the process is gone.
 */
export async function readProcStats(pid: number): Promise<ProcStats | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new RangeError(`invalid pid ${pid}`);
  let stat: string;
  let status: string;
  try {
    [stat, status] = await Promise.all([
      Deno.readTextFile(`/proc/${pid}/stat`),
      Deno.readTextFile(`/proc/${pid}/status`),
    ]);
  } catch {
    return undefined;
  }
  return parseProcStats(stat, status);
}

/**
 * Parses the text of `/proc/<pid>/stat` and `/proc/<pid>/status`. Throws on text that is not
 * in their format.
 */
export function parseProcStats(stat: string, status: string): ProcStats {
  // The command name (field 2) is in parentheses and may contain spaces or parentheses.
  const close = stat.lastIndexOf(")");
  if (close < 0) throw new Error("unrecognised /proc/<pid>/stat");
  const fields = stat.slice(close + 2).trim().split(/\s+/);
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
    throw new Error("unrecognised /proc/<pid>/stat");
  }
  return {
    cpuSeconds: (utime + stime) / CLOCK_TICKS,
    rssBytes: statusKiB(status, "VmRSS") * 1024,
    peakRssBytes: statusKiB(status, "VmHWM") * 1024,
  };
}

function statusKiB(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, "m").exec(status);
  return m ? Number(m[1]) : NaN;
}
