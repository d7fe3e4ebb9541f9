/**
 * Parsers of the Linux `/proc` files the resource statistics come from: the aggregate `cpu`
 * line of `/proc/stat`, `/proc/<pid>/stat`, the `VmRSS` line of `/proc/<pid>/status`, and the
 * node's working set from `/proc/meminfo` (as the kubelet computes it from the root cgroup:
 * usage minus inactive file pages).
 *
 * @module
 */

/**
 * Clock ticks per second of the times in `/proc` (`USER_HZ`, `getconf CLK_TCK`): 100 on every
 * Linux architecture the agent runs on.
 */
export const USER_HZ = 100;

/** One process as `/proc/<pid>/stat` describes it (times in clock ticks). */
export interface PidStat {
  pid: number;
  /** Parent process id. */
  ppid: number;
  /** User and system time of the process itself. */
  utime: number;
  stime: number;
  /** User and system time of its children that were waited for. */
  cutime: number;
  cstime: number;
  /** Start time after boot, in clock ticks. */
  starttime: number;
}

/**
 * The busy time of all CPUs from the `cpu` line of `/proc/stat`, in clock ticks: user, nice,
 * system, irq, softirq and steal (idle and iowait are not busy; guest time is already in user).
 *
 * @throws {SyntaxError} when the text has no `cpu` line.
 */
export function parseCpuBusyTicks(text: string): number {
  const line = text.split("\n").find((l) => /^cpu\s/.test(l));
  if (!line) throw new SyntaxError("Cannot parse /proc/stat: no cpu line");
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((n) => !Number.isFinite(n))) {
    throw new SyntaxError(`Cannot parse /proc/stat: ${line}`);
  }
  const [user, nice, system, , , irq = 0, softirq = 0, steal = 0] = f;
  return user + nice + system + irq + softirq + steal;
}

/** The boot time (`btime`, seconds since the epoch) from `/proc/stat`, or undefined. */
export function parseBootTime(text: string): number | undefined {
  const m = /^btime\s+(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from the last `)`.
 *
 * @throws {SyntaxError} when the text is not a stat line.
 */
export function parsePidStat(text: string): PidStat {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) throw new SyntaxError(`Cannot parse stat: ${text.slice(0, 80)}`);
  const pid = Number(text.slice(0, open).trim());
  // Fields from 3 (state) on; field n is rest[n - 3].
  const rest = text.slice(close + 1).trim().split(/\s+/);
  const field = (n: number) => Number(rest[n - 3]);
  const out: PidStat = {
    pid,
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
    starttime: field(22),
  };
  if (Object.values(out).some((v) => !Number.isFinite(v))) {
    throw new SyntaxError(`Cannot parse stat: ${text.slice(0, 80)}`);
  }
  return out;
}

/** The resident set size in bytes from the `VmRSS` line of `/proc/<pid>/status` (0 if none). */
export function parseStatusRss(text: string): number {
  const m = /^VmRSS:\s+(\d+)\s*kB/m.exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Memory figures of the node, in bytes. */
export interface NodeMemory {
  /** MemAvailable (MemFree when the kernel has no MemAvailable). */
  availableBytes: number;
  /** MemTotal − MemFree: what the root cgroup would count as usage (page cache included). */
  usageBytes: number;
  /** Usage minus inactive file pages, as the kubelet's working set. */
  workingSetBytes: number;
}

/** The node's memory from parsed `/proc/meminfo` values (bytes per key). */
export function nodeMemory(meminfo: Record<string, number>): NodeMemory {
  const total = meminfo.MemTotal ?? 0;
  const free = meminfo.MemFree ?? 0;
  const usage = Math.max(0, total - free);
  const inactiveFile = meminfo["Inactive(file)"] ?? 0;
  return {
    availableBytes: meminfo.MemAvailable ?? free,
    usageBytes: usage,
    workingSetBytes: Math.max(0, usage - inactiveFile),
  };
}

/**
 * The process `root` and its descendants in a process table (pid → stat), root first; an
 * absent root gives none.
 */
export function processTree(table: ReadonlyMap<number, PidStat>, root: number): PidStat[] {
  if (!table.has(root)) return [];
  const children = new Map<number, number[]>();
  for (const p of table.values()) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const out: PidStat[] = [];
  const seen = new Set<number>();
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(table.get(pid)!);
    for (const c of children.get(pid) ?? []) queue.push(c);
  }
  return out;
}

/**
 * CPU seconds consumed by a process tree: each process's own time plus that of its children
 * already reaped (so short-lived children still count once they exit).
 */
export function treeCpuSeconds(tree: readonly PidStat[]): number {
  let ticks = 0;
  for (const p of tree) ticks += p.utime + p.stime + p.cutime + p.cstime;
  return ticks / USER_HZ;
}
