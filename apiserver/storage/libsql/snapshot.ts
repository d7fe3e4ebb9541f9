/**
 * Snapshots of the embedded database: {@link saveSnapshot} copies a live database file into a
 * new file with SQLite's `VACUUM INTO`, which reads inside one read transaction, so the copy is
 * consistent while the server keeps writing (WAL readers do not block the writer);
 * {@link restoreSnapshot} checks a snapshot and installs it as a data directory's `state.db`.
 *
 * A libSQL server (`--storage-url`) is not snapshotted here: `VACUUM INTO` would write on the
 * server's machine. Use the server's own backups (sqld's snapshots or a copy of its data
 * directory); `saveSnapshot` refuses such a URL with a message that says so.
 *
 * @module
 */
import { createClient } from "@libsql/client";

/** The database file's name inside a data directory. */
export const STATE_DB = "state.db";

/** The tables a snapshot of this server's database must hold. */
const REQUIRED_TABLES = ["meta", "kv", "log"];

/** What a snapshot holds, as checked after saving or before restoring. */
export interface SnapshotInfo {
  /** The newest revision in the snapshot. */
  revision: number;
  /** How many live objects it holds. */
  objects: number;
  /** Its size in bytes. */
  bytes: number;
}

/**
 * Writes a consistent copy of the embedded database at `dbPath` (a path or a `file:` URL) to
 * `file`, which must not exist. The copy is made beside `file` and renamed into place, so a
 * failed save leaves nothing behind.
 */
export async function saveSnapshot(dbPath: string, file: string): Promise<SnapshotInfo> {
  if (/^(libsql|wss?|https?):/.test(dbPath)) {
    throw new Error(
      "snapshot save works on the embedded database only; for a libSQL server use its own " +
        "backups (sqld snapshots, or a copy of its data directory taken while it is stopped)",
    );
  }
  const path = dbPath.startsWith("file:") ? dbPath.slice("file:".length) : dbPath;
  await Deno.stat(path); // a clear NotFound instead of an empty database being created
  if (await exists(file)) throw new Error(`${file} already exists`);
  const tmp = `${file}.partial-${crypto.randomUUID()}`;
  const client = createClient({ url: `file:${path}`, timeout: 5000 });
  try {
    await client.execute({ sql: "VACUUM INTO ?", args: [tmp] });
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  } finally {
    client.close();
  }
  try {
    const info = await inspectSnapshot(tmp);
    await Deno.rename(tmp, file);
    return info;
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/**
 * Installs the snapshot `file` as `<dataDir>/state.db` after checking it (SQLite's integrity
 * check and this server's tables). Refuses a data directory that already holds a database:
 * restore into a new directory and start the server on it.
 */
export async function restoreSnapshot(file: string, dataDir: string): Promise<SnapshotInfo> {
  const info = await inspectSnapshot(file);
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const target = `${dataDir}/${STATE_DB}`;
  for (const f of [target, `${target}-wal`, `${target}-shm`]) {
    if (await exists(f)) throw new Error(`${f} already exists: restore into a new data directory`);
  }
  const tmp = `${target}.restore-${crypto.randomUUID()}`;
  try {
    await Deno.copyFile(file, tmp);
    await Deno.chmod(tmp, 0o600);
    await Deno.rename(tmp, target);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  return info;
}

/** Opens `file` (which must exist) and checks it is an intact database of this server. */
export async function inspectSnapshot(file: string): Promise<SnapshotInfo> {
  const { size } = await Deno.stat(file);
  const client = createClient({ url: `file:${file}` });
  try {
    const check = await client.execute("PRAGMA integrity_check");
    const verdict = String(check.rows[0]?.[0] ?? "");
    if (verdict !== "ok") throw new Error(`${file} is damaged: ${verdict}`);
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table'");
    const names = new Set(tables.rows.map((r) => String(r[0])));
    const missing = REQUIRED_TABLES.filter((t) => !names.has(t));
    if (missing.length) {
      throw new Error(`${file} is not a snapshot of this server (no ${missing.join(", ")})`);
    }
    const meta = await client.execute("SELECT revision FROM meta WHERE id = 1");
    const count = await client.execute("SELECT count(*) FROM kv");
    return {
      revision: Number(meta.rows[0]?.[0] ?? 0),
      objects: Number(count.rows[0]?.[0] ?? 0),
      bytes: size,
    };
  } catch (e) {
    if (/file is not a database|SQLITE_NOTADB/i.test(String(e))) {
      throw new Error(`${file} is not a SQLite database`);
    }
    throw e;
  } finally {
    client.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
