/**
 * The process's limit on open file descriptors (RLIMIT_NOFILE). Every connection takes one, so
 * the listener sizes its connection limits from it, and a server raises its soft limit to the
 * hard one at start, as Go programs do (the soft limit is often 1024 while the hard one is far
 * higher). The `deno` command does that itself; a `deno compile` binary may not, so
 * {@link raiseDescriptorLimit} calls setrlimit(2) through FFI when the process may use FFI
 * (`-A` or `--allow-ffi`), and otherwise leaves it to `ulimit -n` before start.
 *
 * @module
 */

/** The process's limit on open files (soft and hard; Infinity for unlimited), on Linux. */
export function readDescriptorLimit(): { soft: number; hard: number } | undefined {
  try {
    const text = Deno.readTextFileSync("/proc/self/limits");
    const line = text.split("\n").find((l) => l.startsWith("Max open files"));
    const [soft, hard] = line?.slice("Max open files".length).trim().split(/\s+/) ?? [];
    const parse = (v: string | undefined) => v === "unlimited" ? Infinity : Number(v);
    const limit = { soft: parse(soft), hard: parse(hard) };
    return Number.isNaN(limit.soft) || Number.isNaN(limit.hard) ? undefined : limit;
  } catch {
    return undefined;
  }
}

/** RLIMIT_NOFILE on Linux. */
const RLIMIT_NOFILE = 7;

/**
 * Raises the soft limit on open files to the hard limit, when it is lower and the process may
 * use FFI (Linux only). Returns the limit in force afterwards (undefined when unknown); never
 * throws.
 */
export function raiseDescriptorLimit(): { soft: number; hard: number } | undefined {
  const before = readDescriptorLimit();
  if (!before || before.soft >= before.hard || Deno.build.os !== "linux") return before;
  try {
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return before;
    const libc = Deno.dlopen("libc.so.6", {
      getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
      setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
    });
    try {
      // struct rlimit: two 64-bit rlim_t, current (soft) and maximum (hard).
      const limits = new BigUint64Array(2);
      const bytes = new Uint8Array(limits.buffer);
      if (libc.symbols.getrlimit(RLIMIT_NOFILE, bytes) === 0) {
        limits[0] = limits[1];
        libc.symbols.setrlimit(RLIMIT_NOFILE, bytes);
      }
    } finally {
      libc.close();
    }
  } catch {
    // No FFI here: the limit stays as it is.
  }
  return readDescriptorLimit();
}
