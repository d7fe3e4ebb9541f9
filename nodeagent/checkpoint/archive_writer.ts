/**
 * Writes a tar archive with `tar-stream`, streaming entries into a temporary file next to the
 * target (mode 0600) that is renamed into place only when complete. On failure or abort the
 * temporary file is removed, so a partial archive is never left behind.
 *
 * @module
 */
import { type Pack, pack as tarPack } from "tar-stream";

/** Adds entries to an archive being written. */
export interface ArchiveWriter {
  /** Adds a regular file (mode 0600) with the given contents. */
  addFile(name: string, data: Uint8Array | string): Promise<void>;
  /** Adds a directory entry. */
  addDirectory(name: string): Promise<void>;
  /** Adds a regular file of exactly `size` bytes streamed from `chunks`. */
  addStream(name: string, size: number, chunks: AsyncIterable<Uint8Array>): Promise<void>;
}

type Sink = ReturnType<Pack["entry"]>;

function onceDrained(sink: Sink): Promise<void> {
  return new Promise((resolve) => sink.once("drain", () => resolve()));
}

async function writeAll(file: Deno.FsFile, chunk: Uint8Array): Promise<void> {
  let off = 0;
  while (off < chunk.length) off += await file.write(chunk.subarray(off));
}

/**
 * Creates `path` as a tar archive filled by `fill`. The archive appears at `path` only when
 * complete; on any error or abort nothing is left behind and the error is rethrown.
 */
export async function writeArchiveAtomically(
  path: string,
  fill: (w: ArchiveWriter) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const tmp = `${dir}/.${path.slice(slash + 1)}.${crypto.randomUUID()}.partial`;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  const pack = tarPack();
  pack.on("error", () => {}); // reported through the consumer
  const mtime = new Date();
  let failed: unknown;
  const consumer = (async () => {
    for await (const chunk of pack as AsyncIterable<Uint8Array>) await writeAll(file, chunk);
  })();
  consumer.catch(() => {}); // awaited below; avoid an unhandled rejection meanwhile
  const writer = archiveWriter(pack, mtime, signal);
  try {
    await fill(writer);
    signal?.throwIfAborted();
    pack.finalize();
    await consumer;
    await file.sync();
  } catch (e) {
    failed = e;
  }
  if (failed !== undefined) {
    pack.destroy(failed instanceof Error ? failed : new Error(String(failed)));
    await consumer.catch(() => {});
  }
  file.close();
  if (failed === undefined) {
    try {
      await Deno.rename(tmp, path);
      return;
    } catch (e) {
      failed = e;
    }
  }
  await Deno.remove(tmp).catch(() => {});
  throw failed;
}

/** Starts an entry of `pack`; `done` settles when the entry is fully written or has failed. */
function startEntry(
  pack: Pack,
  mtime: Date,
  header: Parameters<Pack["entry"]>[0],
): { sink: Sink; done: Promise<void> } {
  let resolve!: () => void, reject!: (e: Error) => void;
  const done = new Promise<void>((res, rej) => [resolve, reject] = [res, rej]);
  done.catch(() => {});
  const sink = pack.entry(
    { uid: 0, gid: 0, mtime, ...header },
    (err) => (err ? reject(err) : resolve()),
  );
  sink.on("error", () => {}); // reported through the entry callback
  return { sink, done };
}

/** The {@link ArchiveWriter} adding entries to `pack`, each checking `signal` first. */
function archiveWriter(pack: Pack, mtime: Date, signal?: AbortSignal): ArchiveWriter {
  const entryDone = (header: Parameters<Pack["entry"]>[0]) => startEntry(pack, mtime, header);
  return {
    async addFile(name, data) {
      signal?.throwIfAborted();
      const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
      const { sink, done } = entryDone({ name, size: bytes.length, mode: 0o600, type: "file" });
      if (!sink.write(bytes)) await onceDrained(sink);
      sink.end(undefined);
      await done;
    },
    async addDirectory(name) {
      signal?.throwIfAborted();
      const { sink, done } = entryDone({ name, mode: 0o700, type: "directory" });
      sink.end(undefined);
      await done;
    },
    async addStream(name, size, chunks) {
      signal?.throwIfAborted();
      const { sink, done } = entryDone({ name, size, mode: 0o600, type: "file" });
      let written = 0;
      for await (const chunk of chunks) {
        signal?.throwIfAborted();
        written += chunk.length;
        if (written > size) {
          throw new Error(`Archive entry ${name} is larger than its size ${size}`);
        }
        if (!sink.write(chunk)) await onceDrained(sink);
      }
      if (written !== size) {
        throw new Error(`Archive entry ${name} has ${written} of ${size} bytes`);
      }
      sink.end(undefined);
      await done;
    },
  };
}
