/**
 * File system usage of a path. Deno has no `statfs`, so this calls libc's `statvfs(3)` through
 * FFI when allowed and falls back to running `df -P` (POSIX output) otherwise.
 *
 * @module
 */
import type { FilesystemStats } from "./host_readings.ts";

// struct statvfs on 64-bit Linux (glibc and musl): 11 eight-byte fields then spare ints.
const STATVFS_SIZE = 112;

function statvfsFfi(path: string): FilesystemStats | undefined {
  if (Deno.build.os !== "linux") return undefined;
  let lib: Deno.DynamicLibrary<{ statvfs: { parameters: ["buffer", "buffer"]; result: "i32" } }>;
  try {
    lib = Deno.dlopen(
      "libc.so.6",
      {
        statvfs: { parameters: ["buffer", "buffer"], result: "i32" },
      } as const,
    );
  } catch {
    return undefined;
  }
  try {
    const buf = new BigUint64Array(STATVFS_SIZE / 8);
    const rc = lib.symbols.statvfs(new TextEncoder().encode(path + "\0"), buf);
    if (rc !== 0) return undefined;
    const [, frsize, blocks, , bavail, files, ffree] = Array.from(buf.slice(0, 7), Number);
    return {
      capacityBytes: blocks * frsize,
      availableBytes: bavail * frsize,
      inodes: files,
      inodesFree: ffree,
    };
  } finally {
    lib.close();
  }
}

async function df(args: string[], path: string): Promise<number[]> {
  const out = await new Deno.Command("df", {
    args: [...args, "--", path],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(
      `Cannot read file system usage of ${path}: ${new TextDecoder().decode(out.stderr).trim()}`,
    );
  }
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return parseDfLine(lines[lines.length - 1]);
}

/**
 * Parses the last line of `df -P` output (file system, total, used, available, capacity, mount
 * point) into total, used and available. The device name may hold spaces, and so may the mount
 * point, so the numbers are found as the three before the `NN%` field.
 */
export function parseDfLine(line: string): [number, number, number] {
  const fields = line.trim().split(/\s+/);
  const pct = fields.findIndex((f, i) => i >= 4 && /^(\d+%|-)$/.test(f));
  if (pct < 0) throw new SyntaxError(`Cannot parse df output: ${line}`);
  const num = (s: string) => (s === "-" ? 0 : Number(s));
  return [num(fields[pct - 3]), num(fields[pct - 2]), num(fields[pct - 1])];
}

/**
 * Returns the usage of the file system holding `path` (`ffi: false` forces the `df` fallback).
 *
 * @throws {Error} when neither statvfs nor df can tell.
 */
export async function filesystemStats(
  path: string,
  opts: { ffi?: boolean } = {},
): Promise<FilesystemStats> {
  let viaFfi: FilesystemStats | undefined;
  if (opts.ffi !== false) {
    try {
      viaFfi = statvfsFfi(path);
    } catch {
      viaFfi = undefined;
    }
  }
  if (viaFfi) return viaFfi;
  const [total, , avail] = await df(["-P", "-B1"], path);
  let inodes = 0, ifree = 0;
  try {
    const [itotal, , iavail] = await df(["-P", "-i"], path);
    inodes = itotal || 0;
    ifree = iavail || 0;
  } catch {
    // Some file systems report no inodes.
  }
  return { capacityBytes: total, availableBytes: avail, inodes, inodesFree: ifree };
}
