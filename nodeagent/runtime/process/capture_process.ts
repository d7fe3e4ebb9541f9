/**
 * Captures a live host process into a checkpoint archive: pauses it with SIGSTOP, streams every
 * readable memory region (`/proc/<pid>/maps` + `/proc/<pid>/mem`), its command line,
 * environment, status, file descriptors and working-directory files into the archive, and
 * resumes it with SIGCONT, also when the capture fails or is aborted.
 *
 * Archive entries (under `checkpoint/`): `cmdline`, `environ`, `status`, `maps`, `fds.json`,
 * `pages-<n>.img` (one per readable region, holes that could not be read are zero-filled),
 * `pagemap.json` (the region index); working-directory files under `workdir/`.
 *
 * @module
 */
import type { ArchiveWriter } from "../../checkpoint/archive_writer.ts";

/** One memory region as `/proc/<pid>/maps` lists it. */
export interface MemoryRegion {
  start: bigint;
  end: bigint;
  perms: string;
  offset: string;
  dev: string;
  inode: string;
  path: string;
}

/** One entry of `checkpoint/pagemap.json`. */
export interface PagemapEntry {
  /** Start address, hex. */
  start: string;
  /** End address, hex. */
  end: string;
  perms: string;
  path: string;
  /** The archive entry holding the bytes, absent when the region could not be read at all. */
  file?: string;
  /** Byte ranges (relative to start) that could not be read and were zero-filled. */
  holes?: [number, number][];
}

/** What a capture did. */
export interface CaptureStats {
  /** Milliseconds the process was stopped. */
  pausedMs: number;
  /** Readable regions dumped. */
  regions: number;
  /** Memory bytes written. */
  memoryBytes: number;
  /** Regions that could not be read at all. */
  unreadableRegions: number;
  /** Working-directory files stored. */
  workdirFiles: number;
}

const CHUNK = 1 << 20;

/** Parses the text of `/proc/<pid>/maps`. */
export function parseMaps(text: string): MemoryRegion[] {
  const out: MemoryRegion[] = [];
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    out.push({
      start: BigInt(`0x${m[1]}`),
      end: BigInt(`0x${m[2]}`),
      perms: m[3],
      offset: m[4],
      dev: m[5],
      inode: m[6],
      path: m[7],
    });
  }
  return out;
}

function processState(pid: number): string | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

async function waitStopped(pid: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    signal.throwIfAborted();
    const s = processState(pid);
    if (s === undefined) throw new Error(`Process ${pid} exited`);
    if (s === "T" || s === "t") return;
    if (Date.now() > deadline) throw new Error(`Process ${pid} did not stop (state ${s})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function readOptional(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (e) {
    return new TextEncoder().encode(`unreadable: ${(e as Error).message}\n`);
  }
}

async function readAt(file: Deno.FsFile, pos: bigint, buf: Uint8Array): Promise<number> {
  await file.seek(pos, Deno.SeekMode.Start);
  let got = 0;
  while (got < buf.length) {
    const n = await file.read(buf.subarray(got));
    if (n === null || n === 0) break;
    got += n;
  }
  return got;
}

async function listFds(
  pid: number,
): Promise<{ fd: number; target: string; pos?: number; flags?: string }[]> {
  const out: { fd: number; target: string; pos?: number; flags?: string }[] = [];
  try {
    for await (const e of Deno.readDir(`/proc/${pid}/fd`)) {
      const fd = Number(e.name);
      let target = "";
      try {
        target = await Deno.readLink(`/proc/${pid}/fd/${e.name}`);
      } catch {
        continue; // closed meanwhile
      }
      const entry: { fd: number; target: string; pos?: number; flags?: string } = { fd, target };
      try {
        const info = await Deno.readTextFile(`/proc/${pid}/fdinfo/${e.name}`);
        entry.pos = Number(/^pos:\s+(\d+)/m.exec(info)?.[1] ?? 0);
        entry.flags = /^flags:\s+(\S+)/m.exec(info)?.[1];
      } catch {
        // fdinfo may vanish with the fd
      }
      out.push(entry);
    }
  } catch {
    // no access to the fd table
  }
  return out.sort((a, b) => a.fd - b.fd);
}

async function addWorkdir(w: ArchiveWriter, root: string, signal: AbortSignal): Promise<number> {
  let n = 0;
  const walk = async (rel: string): Promise<void> => {
    const dir = rel ? `${root}/${rel}` : root;
    const entries: Deno.DirEntry[] = [];
    for await (const e of Deno.readDir(dir)) entries.push(e);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      signal.throwIfAborted();
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) {
        await w.addDirectory(`workdir/${r}`);
        await walk(r);
      } else if (e.isFile) {
        const path = `${root}/${r}`;
        const size = (await Deno.stat(path)).size;
        const file = await Deno.open(path);
        try {
          await w.addStream(`workdir/${r}`, size, fixedSize(file, size));
        } finally {
          file.close();
        }
        n++;
      }
    }
  };
  await walk("");
  return n;
}

/** Yields exactly `size` bytes of a file (zero padding if it shrank while read). */
async function* fixedSize(file: Deno.FsFile, size: number): AsyncIterable<Uint8Array> {
  let left = size;
  while (left > 0) {
    const buf = new Uint8Array(Math.min(CHUNK, left));
    let got = 0;
    while (got < buf.length) {
      const n = await file.read(buf.subarray(got));
      if (n === null) break;
      got += n;
    }
    left -= buf.length;
    yield buf;
  }
}

/**
 * Captures process `pid` into `w`. The process is resumed before this returns or throws.
 *
 * @throws {Error} when the process is gone, cannot be stopped, or the archive fails; or the
 *   signal's reason when aborted.
 */
export async function captureProcess(
  pid: number,
  w: ArchiveWriter,
  opts: { workDir?: string; signal: AbortSignal },
): Promise<CaptureStats> {
  const { signal } = opts;
  const stats: CaptureStats = {
    pausedMs: 0,
    regions: 0,
    memoryBytes: 0,
    unreadableRegions: 0,
    workdirFiles: 0,
  };
  if (processState(pid) === undefined) throw new Error(`Process ${pid} does not exist`);
  const pausedAt = Date.now();
  Deno.kill(pid, "SIGSTOP");
  try {
    await waitStopped(pid, signal);
    await addProcessInfo(pid, w);
    const pagemap = await addMemory(pid, w, signal, stats);
    await w.addFile("checkpoint/pagemap.json", JSON.stringify(pagemap, null, 2));
    if (opts.workDir) stats.workdirFiles = await addWorkdir(w, opts.workDir, signal);
  } finally {
    try {
      Deno.kill(pid, "SIGCONT");
    } catch {
      // the process is gone; nothing to resume
    }
    stats.pausedMs = Date.now() - pausedAt;
  }
  return stats;
}

/** Adds the `checkpoint` directory with the process's /proc files, cwd and open fds. */
async function addProcessInfo(pid: number, w: ArchiveWriter): Promise<void> {
  await w.addDirectory("checkpoint");
  for (const name of ["cmdline", "environ", "status", "maps"]) {
    await w.addFile(`checkpoint/${name}`, await readOptional(`/proc/${pid}/${name}`));
  }
  let cwd = "";
  try {
    cwd = await Deno.readLink(`/proc/${pid}/cwd`);
  } catch {
    // unreadable cwd
  }
  await w.addFile(
    "checkpoint/fds.json",
    JSON.stringify({ cwd, fds: await listFds(pid) }, null, 2),
  );
}

/**
 * Adds each readable memory region of the process as `checkpoint/pages-<n>.img`, counting
 * into `stats`; returns the page map of all regions.
 */
async function addMemory(
  pid: number,
  w: ArchiveWriter,
  signal: AbortSignal,
  stats: CaptureStats,
): Promise<PagemapEntry[]> {
  const maps = parseMaps(await Deno.readTextFile(`/proc/${pid}/maps`));
  const pagemap: PagemapEntry[] = [];
  const mem = await Deno.open(`/proc/${pid}/mem`, { read: true });
  try {
    let index = 0;
    for (const region of maps) {
      signal.throwIfAborted();
      const entry: PagemapEntry = {
        start: region.start.toString(16),
        end: region.end.toString(16),
        perms: region.perms,
        path: region.path,
      };
      pagemap.push(entry);
      if (!region.perms.startsWith("r")) continue;
      const size = Number(region.end - region.start);
      const first = new Uint8Array(Math.min(CHUNK, size));
      let got: number;
      try {
        got = await readAt(mem, region.start, first);
      } catch {
        got = 0;
      }
      if (got === 0) {
        stats.unreadableRegions++;
        continue;
      }
      const name = `checkpoint/pages-${++index}.img`;
      const holes: [number, number][] = [];
      if (got < first.length) holes.push([got, first.length]);
      await w.addStream(name, size, regionChunks(mem, region.start, size, first, holes));
      entry.file = name;
      if (holes.length) entry.holes = holes;
      stats.regions++;
      stats.memoryBytes += size;
    }
  } finally {
    mem.close();
  }
  return pagemap;
}

/**
 * Yields a region's `size` bytes: `first` (already read), then the rest chunk by chunk, noting
 * in `holes` the ranges that could not be read (left zero).
 */
async function* regionChunks(
  mem: Deno.FsFile,
  start: bigint,
  size: number,
  first: Uint8Array,
  holes: [number, number][],
): AsyncIterable<Uint8Array> {
  yield first;
  for (let off = first.length; off < size; off += CHUNK) {
    const buf = new Uint8Array(Math.min(CHUNK, size - off));
    let n = 0;
    try {
      n = await readAt(mem, start + BigInt(off), buf);
    } catch {
      n = 0;
    }
    if (n < buf.length) holes.push([off + n, off + buf.length]);
    yield buf;
  }
}
