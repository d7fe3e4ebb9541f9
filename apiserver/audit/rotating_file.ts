/**
 * An append-only log file that rotates by size, as kube-apiserver's audit log does (its
 * lumberjack logger): a write that would take the file past `maxSizeMB` first renames it to
 * `<name>-<UTC time as 2006-01-02T15-04-05.000><ext>` beside it, then backups beyond
 * `maxBackups` (newest kept) or older than `maxAgeDays` are removed. Writes are queued and
 * written in order without holding the caller.
 *
 * @module
 */

/** Options of {@link RotatingFile}. */
export interface RotatingFileOptions {
  path: string;
  /** Size in MiB after which the file rotates; 0 means lumberjack's default, 100. */
  maxSizeMB?: number;
  /** Backups kept at most; 0 keeps all. */
  maxBackups?: number;
  /** Backups older than this many days are removed; 0 keeps them. */
  maxAgeDays?: number;
  /** Milliseconds clock (backup names, ages); default Date.now. */
  clock?: () => number;
  /** Called with a write's error (the write is dropped). */
  onError?: (err: Error) => void;
}

const MIB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

/** See the module doc. */
export class RotatingFile {
  readonly #opts: RotatingFileOptions;
  readonly #maxBytes: number;
  #file: Deno.FsFile | undefined;
  #size = 0;
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;
  readonly #encoder = new TextEncoder();

  constructor(opts: RotatingFileOptions) {
    this.#opts = opts;
    this.#maxBytes = (opts.maxSizeMB || 100) * MIB;
  }

  /** Queues `text` (whole lines) for writing. */
  write(text: string): void {
    this.#pending.push(text);
    this.#flushing ??= this.#drain();
  }

  /** Resolves when everything queued so far is written. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /** Writes what is queued and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    this.#file?.close();
    this.#file = undefined;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const bytes = this.#encoder.encode(this.#pending.join(""));
        this.#pending = [];
        try {
          await this.#append(bytes);
        } catch (err) {
          this.#opts.onError?.(err instanceof Error ? err : new Error(String(err)));
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  async #append(bytes: Uint8Array): Promise<void> {
    if (!this.#file) await this.#open();
    if (this.#size > 0 && this.#size + bytes.length > this.#maxBytes) await this.#rotate();
    let off = 0;
    while (off < bytes.length) off += await this.#file!.write(bytes.subarray(off));
    this.#size += bytes.length;
  }

  async #open(): Promise<void> {
    this.#file = await Deno.open(this.#opts.path, {
      append: true,
      create: true,
      mode: 0o600,
    });
    this.#size = (await this.#file.stat()).size;
  }

  async #rotate(): Promise<void> {
    this.#file?.close();
    this.#file = undefined;
    const now = (this.#opts.clock ?? Date.now)();
    const { dir, base, ext } = splitPath(this.#opts.path);
    await Deno.rename(this.#opts.path, `${dir}${base}-${backupTime(now)}${ext}`);
    await this.#prune(now);
    await this.#open();
  }

  async #prune(now: number): Promise<void> {
    const { dir, base, ext } = splitPath(this.#opts.path);
    const backups: { name: string; time: number }[] = [];
    for await (const e of Deno.readDir(dir || ".")) {
      if (!e.isFile || !e.name.startsWith(`${base}-`) || !e.name.endsWith(ext)) continue;
      const time = parseBackupTime(e.name.slice(base.length + 1, e.name.length - ext.length));
      if (time !== undefined) backups.push({ name: e.name, time });
    }
    backups.sort((a, b) => b.time - a.time);
    const { maxBackups = 0, maxAgeDays = 0 } = this.#opts;
    const doomed = backups.filter((b, i) =>
      (maxBackups > 0 && i >= maxBackups) || (maxAgeDays > 0 && now - b.time > maxAgeDays * DAY_MS)
    );
    for (const b of doomed) await Deno.remove(`${dir}${b.name}`).catch(() => {});
  }
}

function splitPath(path: string): { dir: string; base: string; ext: string } {
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash + 1);
  const file = path.slice(slash + 1);
  const dot = file.lastIndexOf(".");
  return dot > 0
    ? { dir, base: file.slice(0, dot), ext: file.slice(dot) }
    : { dir, base: file, ext: "" };
}

/** lumberjack's backup time format, 2006-01-02T15-04-05.000 in UTC. */
export function backupTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace(/:/g, "-");
}

function parseBackupTime(s: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}\.\d{3})$/.exec(s);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  return Number.isNaN(t) ? undefined : t;
}
