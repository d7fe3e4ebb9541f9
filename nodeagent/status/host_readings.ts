/**
 * What the node agent observes of its host; the input of capacity and condition computation.
 *
 * @module
 */

/** Usage of one file system. */
export interface FilesystemStats {
  /** Total size in bytes. */
  capacityBytes: number;
  /** Bytes available to unprivileged users. */
  availableBytes: number;
  /** Total inodes (0 when the file system does not report them). */
  inodes: number;
  /** Free inodes. */
  inodesFree: number;
}

/** One snapshot of the host. */
export interface HostReadings {
  /** Online logical CPUs. */
  cpuCount: number;
  /** MemTotal in bytes. */
  memoryTotalBytes: number;
  /** MemAvailable in bytes. */
  memoryAvailableBytes: number;
  /** The largest process id (`/proc/sys/kernel/pid_max`). */
  pidMax: number;
  /** Tasks (processes and threads) currently existing. */
  processCount: number;
  /** Usage of the file system holding the agent's root directory. */
  rootFs: FilesystemStats;
}
