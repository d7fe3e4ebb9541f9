/**
 * The libSQL storage backend: etcd semantics (one global revision, compare-and-swap writes,
 * reads at past revisions, a change log) over an embedded SQLite file or a libSQL server
 * (sqld). Only this folder talks to `@libsql/client` and the `libsql` driver.
 *
 * The layers, as kine separates them: the SQL (`schema.ts`, `statements.ts` for reads and
 * maintenance, `write_batch.ts` for one group commit), the committer that runs every write
 * transaction (`committer.ts`, which also says where commits run and why), compaction and
 * upkeep (`maintenance.ts`), and this class, which opens the database, validates calls,
 * serves reads and hands writes to the committer.
 *
 * @module
 */
import { type Client, createClient, type InStatement, type Value } from "@libsql/client";
import {
  type ChangeEvent,
  CompactedError,
  FutureRevisionError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type SideWrites,
  type Storage,
  StorageError,
  StorageUnavailableError,
} from "../interface.ts";
import { BusyRetry, errorMessage } from "./busy_retry.ts";
import { Committer, type GroupCommitInfo, type LibsqlStorageStats } from "./committer.ts";
import { FileLock } from "./file_lock.ts";
import { prefixEnd } from "./key_range.ts";
import { Maintenance, type MaintenanceResult } from "./maintenance.ts";
import {
  FILE_PRAGMAS,
  KV_DEFINITION_SQL,
  KV_MIGRATION,
  LOG_ADDED,
  LOG_DELETED,
  LOG_MODIFIED,
  needsKvMigration,
  SCHEMA_STATEMENTS,
} from "./schema.ts";
import {
  CHANGES_SINCE_SQL,
  GET_AT_REVISION_SQL,
  GET_SQL,
  META_SQL,
  num,
  pageStatements,
  str,
} from "./statements.ts";
import { type ReadStatement, SyncBatchWriter } from "./sync_batch_writer.ts";
import { WorkerWriter } from "./worker_writer.ts";
import { sideOps, type WriteOp } from "./write_batch.ts";

export type { GroupCommitInfo, LibsqlStorageStats, MaintenanceResult };

/** Options of {@link LibsqlStorage.open}. */
export interface LibsqlStorageOptions {
  /**
   * `file:<path>` for an embedded database, or `libsql://`, `ws://`, `wss://` (also `http://`,
   * `https://`, which cost one HTTP round trip per statement) for a libSQL server (sqld).
   */
  url: string;
  /** Token for a libSQL server. Never logged. */
  authToken?: string;
  /** How long history stays readable (Exact reads, watches from the past). Default 5 minutes. */
  historyWindowMs?: number;
  /** Clock in ms since the epoch, used for commit times and the history window. Default Date.now. */
  now?: () => number;
  /**
   * Period of background maintenance (compaction of history older than the window, WAL
   * checkpoint, free-page reclaim), in ms. Default 30 s; 0 disables it (call
   * {@link LibsqlStorage.maintain} yourself).
   */
  maintenanceIntervalMs?: number;
  /** Most writes committed in one transaction (group commit). Default 256. */
  maxBatch?: number;
  /**
   * Embedded file only: how long SQLite itself waits (blocking the thread) for another
   * process's write lock before the storage falls back to retrying with backoff. Default 1000.
   */
  busyTimeoutMs?: number;
  /**
   * Embedded file only: start a write worker (default true) that takes the commits while the
   * disk is slow. Commits run on the caller's thread while they are fast (handing each one to
   * another thread and back costs more than the commit); a commit slower than
   * {@link slowCommitMs} (a stalling fsync blocks the whole thread) moves the commits to the
   * worker for {@link workerWindowMs}, and each slow commit there extends the stay. Without a
   * worker (false, or where none can start) every commit runs on the caller's thread. See
   * `committer.ts`.
   */
  writeWorker?: boolean;
  /** A commit taking longer than this (ms) moves the commits to the write worker. Default 50. */
  slowCommitMs?: number;
  /** How long commits stay on the write worker after a slow commit (ms). Default 10000. */
  workerWindowMs?: number;
  /** Told of every group commit that wrote something (for metrics). */
  onGroupCommit?: (commit: GroupCommitInfo) => void;
}

const DEFAULT_HISTORY_WINDOW_MS = 5 * 60 * 1000;
const DEFAULT_MAINTENANCE_INTERVAL_MS = 30_000;
const DEFAULT_MAX_BATCH = 256;
const DEFAULT_BUSY_TIMEOUT_MS = 1000;
const DEFAULT_SLOW_COMMIT_MS = 50;
const DEFAULT_WORKER_WINDOW_MS = 10_000;
const MAX_FILTER_PAGE = 10_000;
const NO_LIMIT = -1;
const REMOTE_SCHEMES = ["libsql", "ws", "wss", "http", "https"];

/** The rows of one read statement, each row's column values by position. */
interface Rows {
  rows: ArrayLike<Value>[];
}

/** Rows of a page read at one revision. */
interface Page {
  rows: KeyValue[];
  revision: number;
  total?: number;
}

/** What {@link LibsqlStorage.open} built, handed to the constructor. */
interface Parts {
  client: Client;
  inline: SyncBatchWriter | undefined;
  worker: WorkerWriter | undefined;
  busy: BusyRetry;
  stats: LibsqlStorageStats;
}

/**
 * {@link Storage} on libSQL.
 *
 * Layout (`schema.ts`): `kv` holds the current state (a list at the latest revision is a
 * key-range scan of it, never of history), `log` holds one row per revision (type, key,
 * value, previous revision and value, commit time), and the one-row `meta` table holds the
 * revision counter and the compacted revision. Every write reads and bumps the counter inside
 * its `BEGIN IMMEDIATE` transaction, so revisions stay gap-free and compare-and-swap holds even
 * with several processes sharing one sqld.
 *
 * Writes: queued on the {@link Committer}, which group-commits them one transaction at a time
 * and decides where each commit runs: on a libSQL server through `@libsql/client`; on an
 * embedded file on this thread through the synchronous driver while commits are fast, and on
 * the write worker for a while after a slow one (`committer.ts` says why). Maintenance steps
 * (`maintenance.ts`) take turns with the group commits in the same queue.
 *
 * Reads: on an embedded file through this thread's connection of the synchronous driver
 * (statements prepared once; WAL readers never wait for the writer), on a server through
 * `@libsql/client`.
 *
 * Durability: SQLite's default `synchronous=FULL` is never lowered (the client pools
 * connections and a PRAGMA would reach only one of them); every write transaction on an
 * embedded file reads it back and refuses to commit below FULL. sqld manages durability itself
 * (it runs `synchronous=NORMAL` on its WAL and rejects PRAGMA synchronous from clients).
 * Instances in one process that share a file take turns through an in-process lock
 * (`file_lock.ts`); another process holding the write lock is waited for by SQLite's busy
 * timeout (`busyTimeoutMs`), then retried with backoff (`busy_retry.ts`).
 */
export class LibsqlStorage implements Storage {
  readonly #client: Client;
  /** Embedded file: this thread's connection (reads, and the commits that run inline). */
  readonly #inline: SyncBatchWriter | undefined;
  readonly #worker: WorkerWriter | undefined;
  readonly #lock: FileLock | undefined;
  readonly #busy: BusyRetry;
  readonly #stats: LibsqlStorageStats;
  readonly #committer: Committer;
  readonly #maintenance: Maintenance;
  #closed = false;

  private constructor(parts: Parts, url: string, opts: LibsqlStorageOptions) {
    this.#client = parts.client;
    this.#inline = parts.inline;
    this.#worker = parts.worker;
    this.#busy = parts.busy;
    this.#stats = parts.stats;
    this.#lock = parts.inline ? FileLock.acquire(url) : undefined;
    const now = opts.now ?? Date.now;
    this.#committer = new Committer({
      client: parts.client,
      inline: parts.inline,
      worker: parts.worker,
      lock: this.#lock,
      busy: parts.busy,
      stats: parts.stats,
      now,
      maxBatch: opts.maxBatch ?? DEFAULT_MAX_BATCH,
      slowCommitMs: opts.slowCommitMs ?? DEFAULT_SLOW_COMMIT_MS,
      workerWindowMs: opts.workerWindowMs ?? DEFAULT_WORKER_WINDOW_MS,
      onGroupCommit: opts.onGroupCommit,
    });
    this.#maintenance = new Maintenance({
      client: parts.client,
      embedded: parts.inline !== undefined,
      committer: this.#committer,
      busy: parts.busy,
      stats: parts.stats,
      now,
      historyWindowMs: opts.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS,
      intervalMs: opts.maintenanceIntervalMs ?? DEFAULT_MAINTENANCE_INTERVAL_MS,
      compactedRevision: () => this.compactedRevision(),
    });
  }

  /**
   * Opens (creating if needed) the database at `opts.url`, creates the schema and starts
   * background maintenance. Throws a clear Error for a bad URL or option.
   */
  static async open(opts: LibsqlStorageOptions): Promise<LibsqlStorage> {
    const { url, embedded } = checkOptions(opts);
    let client: Client | undefined;
    let inline: SyncBatchWriter | undefined;
    let worker: WorkerWriter | undefined;
    try {
      // The embedded client opens a first connection right away and throws if it cannot.
      const busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
      const c = client = createClient({
        url,
        ...(opts.authToken ? { authToken: opts.authToken } : {}),
        ...(embedded ? { timeout: busyTimeoutMs } : {}),
      });
      const stats = newStats();
      const busy = new BusyRetry(stats, () => c.closed);
      await busy.run(() => createSchema(c, embedded));
      if (embedded) {
        inline = SyncBatchWriter.open(url, busyTimeoutMs);
        if (opts.writeWorker !== false) worker = await startWorker(url, busyTimeoutMs);
        stats.writeWorker = worker !== undefined;
      }
      const storage = new LibsqlStorage({ client: c, inline, worker, busy, stats }, url, opts);
      storage.#maintenance.schedule();
      return storage;
    } catch (e) {
      await worker?.close();
      inline?.close();
      client?.close();
      throw new Error(`cannot open storage: ${errorMessage(e)}`, { cause: e });
    }
  }

  /** Counters of the write path (a copy). */
  stats(): LibsqlStorageStats {
    return { ...this.#stats };
  }

  /** {@inheritDoc Storage.currentRevision} */
  async currentRevision(): Promise<number> {
    return (await this.#meta()).revision;
  }

  /** {@inheritDoc Storage.compactedRevision} */
  async compactedRevision(): Promise<number> {
    return (await this.#meta()).compacted;
  }

  /** {@inheritDoc Storage.get} */
  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    checkKey(key);
    const revision = opts?.revision;
    if (revision === undefined) {
      const [rs] = await this.#read([{ sql: GET_SQL, args: [key] }]);
      const row = rs.rows[0];
      return row ? { key, value: str(row[0]), revision: num(row[1]) } : undefined;
    }
    checkRevision(revision);
    const [meta, rs] = await this.#read([
      META_SQL,
      { sql: GET_AT_REVISION_SQL, args: [key, revision] },
    ]);
    checkReadable(revision, num(meta.rows[0][0]), num(meta.rows[0][1]));
    const row = rs.rows[0];
    return row ? { key, value: str(row[0]), revision: num(row[1]) } : undefined;
  }

  /** {@inheritDoc Storage.list} */
  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    checkListOptions(prefix, opts);
    const { filter } = opts;
    const limit = opts.limit ?? 0;
    const upper = prefixEnd(prefix);
    const wantCount = opts.count === true && filter === undefined;
    let revision = opts.revision;
    let lower = opts.startKey ?? prefix;
    let inclusive = true;
    let pageSize = limit > 0 ? limit : NO_LIMIT;
    const items: KeyValue[] = [];
    let total: number | undefined;
    for (let first = true;; first = false) {
      const page = await this.#readPage(
        revision,
        lower,
        inclusive,
        upper,
        pageSize === NO_LIMIT ? NO_LIMIT : pageSize + 1,
        wantCount && first,
      );
      revision = page.revision;
      if (first) total = page.total;
      const hasMore = pageSize !== NO_LIMIT && page.rows.length > pageSize;
      const rows = hasMore ? page.rows.slice(0, pageSize) : page.rows;
      for (let i = 0; i < rows.length; i++) {
        const kv = rows[i];
        if (filter && !filter(kv)) continue;
        items.push(kv);
        if (limit > 0 && items.length === limit) {
          return result(items, revision, hasMore || i < rows.length - 1, total);
        }
      }
      if (!hasMore) return result(items, revision, false, total);
      lower = rows[rows.length - 1].key;
      inclusive = false;
      if (pageSize < MAX_FILTER_PAGE) pageSize = Math.min(pageSize * 2, MAX_FILTER_PAGE);
    }
  }

  /** {@inheritDoc Storage.create} */
  async create(key: string, value: string, decoded?: unknown, side?: SideWrites) {
    checkEntry(key, value);
    return await this.#committer.enqueueGroup<KeyValue>(
      [{ kind: "create", key, value }, ...sideOps(side)],
      decoded,
    );
  }

  /** {@inheritDoc Storage.update} */
  async update(
    key: string,
    value: string,
    expectedRevision: number,
    decoded?: unknown,
    side?: SideWrites,
  ): Promise<KeyValue> {
    checkEntry(key, value);
    checkRevision(expectedRevision);
    return await this.#committer.enqueueGroup<KeyValue>(
      [{ kind: "update", key, value, expected: expectedRevision }, ...sideOps(side)],
      decoded,
    );
  }

  /** {@inheritDoc Storage.delete} */
  async delete(key: string, expectedRevision: number, side?: SideWrites): Promise<ChangeEvent> {
    checkKey(key);
    checkRevision(expectedRevision);
    const op: WriteOp = { kind: "delete", key, expected: expectedRevision };
    return await this.#committer.enqueueGroup<ChangeEvent>([op, ...sideOps(side)]);
  }

  /** {@inheritDoc Storage.changesSince} */
  async changesSince(afterRevision: number, limit: number): Promise<ChangeEvent[]> {
    checkRevision(afterRevision);
    if (!Number.isSafeInteger(limit) || limit <= 0) {
      throw new TypeError(`changesSince limit must be a positive integer, got ${limit}`);
    }
    const [meta, rs] = await this.#read([
      META_SQL,
      { sql: CHANGES_SINCE_SQL, args: [afterRevision, limit] },
    ]);
    const compacted = num(meta.rows[0][1]);
    if (afterRevision < compacted) throw new CompactedError(afterRevision, compacted);
    return rs.rows.map(logEvent);
  }

  /** {@inheritDoc Storage.onCommit} */
  onCommit(listener: (events: ChangeEvent[]) => void): () => void {
    return this.#committer.onCommit(listener);
  }

  /**
   * {@inheritDoc Storage.compact}
   * Runs in steps of 1000 revisions, each its own transaction, taking turns with writes.
   * Throws FutureRevisionError above the current revision; compacting below the compacted
   * revision does nothing.
   */
  async compact(revision: number): Promise<void> {
    checkRevision(revision);
    const { revision: current } = await this.#meta();
    if (revision > current) throw new FutureRevisionError(revision, current);
    await this.#maintenance.compactTo(revision);
  }

  /**
   * Runs one round of maintenance now: compacts history older than the window, then (embedded
   * file) reclaims free pages and checkpoints the WAL. The background timer calls this; tests
   * call it with an injected clock.
   */
  async maintain(): Promise<MaintenanceResult> {
    return await this.#maintenance.run();
  }

  /** {@inheritDoc Storage.ping} */
  async ping(): Promise<void> {
    await this.#busy.run(() => this.#client.execute("SELECT 1"));
  }

  /** {@inheritDoc Storage.close} */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#committer.refuseWrites();
    await this.#maintenance.stop();
    await this.#committer.drain();
    await this.#worker?.close();
    this.#inline?.close();
    this.#client.close();
    this.#lock?.release();
  }

  async #meta(): Promise<{ revision: number; compacted: number }> {
    const [rs] = await this.#read([META_SQL]);
    return { revision: num(rs.rows[0][0]), compacted: num(rs.rows[0][1]) };
  }

  /**
   * Runs read statements in one read transaction (one snapshot). An embedded file is read
   * through the connection this thread commits on, whose statements are prepared once;
   * `@libsql/client` prepares every statement anew and builds an object per row.
   */
  #read(stmts: InStatement[]): Promise<Rows[]> {
    return this.#busy.run<Rows[]>(() => {
      const inline = this.#inline;
      if (inline) {
        return Promise.resolve(
          inline.read(stmts as ReadStatement[]).map((rows) => ({ rows: rows as Value[][] })),
        );
      }
      return this.#client.batch(stmts, "deferred");
    }).catch((e) => {
      throw new StorageUnavailableError(`storage read failed: ${errorMessage(e)}`, { cause: e });
    });
  }

  /**
   * Reads keys in [lower, upper) (lower exclusive unless `inclusive`) at `revision` (latest if
   * undefined), in key order, at most `limit` (-1: all), plus the count of all keys in range.
   */
  async #readPage(
    revision: number | undefined,
    lower: string,
    inclusive: boolean,
    upper: string | undefined,
    limit: number,
    count: boolean,
  ): Promise<Page> {
    const stmts = pageStatements(revision, lower, inclusive, upper, limit, count);
    const [meta, rs, countRs] = await this.#read(stmts);
    const current = num(meta.rows[0][0]);
    if (revision !== undefined) checkReadable(revision, current, num(meta.rows[0][1]));
    const rows = rs.rows.map((row) => ({
      key: str(row[0]),
      value: str(row[1]),
      revision: num(row[2]),
    }));
    return {
      rows,
      revision: revision ?? current,
      total: countRs ? num(countRs.rows[0][0]) : undefined,
    };
  }
}

/** Checks the URL and the numeric options; returns the trimmed URL and whether it is a file. */
function checkOptions(opts: LibsqlStorageOptions): { url: string; embedded: boolean } {
  const url = typeof opts?.url === "string" ? opts.url.trim() : "";
  const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== "file" && !REMOTE_SCHEMES.includes(scheme ?? "")) {
    throw new Error(
      `storage URL must start with file:, libsql://, ws://, wss://, http:// or https://, got ${
        JSON.stringify(url.replace(/\?.*/, ""))
      }`,
    );
  }
  if (scheme === "file" && url.length <= "file:".length) {
    throw new Error("storage URL file: needs a path");
  }
  checkPositive("historyWindowMs", opts.historyWindowMs, true);
  checkPositive("maintenanceIntervalMs", opts.maintenanceIntervalMs, true);
  checkPositive("maxBatch", opts.maxBatch, false);
  checkPositive("busyTimeoutMs", opts.busyTimeoutMs, true);
  checkPositive("slowCommitMs", opts.slowCommitMs, true);
  checkPositive("workerWindowMs", opts.workerWindowMs, true);
  return { url, embedded: scheme === "file" };
}

function newStats(): LibsqlStorageStats {
  return {
    transactions: 0,
    committedWrites: 0,
    largestBatch: 0,
    busyRetries: 0,
    writeWorker: false,
    inlineCommits: 0,
    workerCommits: 0,
    slowCommits: 0,
  };
}

/** Shapes the file (embedded), migrates an earlier `kv` and creates the schema. */
async function createSchema(client: Client, embedded: boolean): Promise<void> {
  if (embedded) {
    for (const pragma of FILE_PRAGMAS) await client.execute(pragma);
  }
  await migrateKv(client);
  await client.batch([...SCHEMA_STATEMENTS], "write");
}

/** Starts the write worker, or answers undefined where none can start. */
async function startWorker(url: string, busyTimeoutMs: number): Promise<WorkerWriter | undefined> {
  try {
    return await WorkerWriter.start(url, busyTimeoutMs);
  } catch {
    // No Worker here (e.g. a compiled binary without the worker module): commit on this thread.
    return undefined;
  }
}

/** Rebuilds an earlier WITHOUT ROWID `kv` (see schema.ts); another process may race us to it. */
async function migrateKv(client: Client): Promise<void> {
  const definition = async () => {
    const rs = await client.execute(KV_DEFINITION_SQL);
    return rs.rows.length > 0 ? str(rs.rows[0][0]) : undefined;
  };
  if (!needsKvMigration(await definition())) return;
  try {
    await client.batch([...KV_MIGRATION], "write");
  } catch (e) {
    if (needsKvMigration(await definition())) throw e;
  }
}

/** The change of one row of {@link CHANGES_SINCE_SQL}. */
function logEvent(row: ArrayLike<Value>): ChangeEvent {
  const type = num(row[1]);
  const prevValue = row[5] === null ? undefined : str(row[5]);
  const event: ChangeEvent = {
    type: type === LOG_ADDED ? "ADDED" : type === LOG_MODIFIED ? "MODIFIED" : "DELETED",
    key: str(row[2]),
    value: type === LOG_DELETED ? prevValue ?? "" : str(row[3]),
    revision: num(row[0]),
    prevRevision: num(row[4]),
  };
  if (prevValue !== undefined) event.prevValue = prevValue;
  return event;
}

function result(items: KeyValue[], revision: number, more: boolean, total?: number): ListResult {
  const out: ListResult = { items, revision, more };
  if (total !== undefined) out.remaining = Math.max(0, total - items.length);
  return out;
}

function checkListOptions(prefix: string, opts: ListOptions): void {
  if (typeof prefix !== "string") throw new TypeError("list prefix must be a string");
  const { startKey } = opts;
  const limit = opts.limit ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new TypeError(`list limit must be a non-negative integer, got ${opts.limit}`);
  }
  if (startKey !== undefined && (typeof startKey !== "string" || !startKey.startsWith(prefix))) {
    throw new StorageError(
      `startKey ${JSON.stringify(startKey)} is outside prefix ${JSON.stringify(prefix)}`,
      String(startKey),
    );
  }
  if (opts.revision !== undefined) checkRevision(opts.revision);
}

function checkReadable(revision: number, current: number, compacted: number): void {
  if (revision < compacted) throw new CompactedError(revision, compacted);
  if (revision > current) throw new FutureRevisionError(revision, current);
}

function checkKey(key: string): void {
  if (typeof key !== "string" || key === "" || !key.isWellFormed() || key.includes("\0")) {
    throw new StorageError(`invalid storage key ${JSON.stringify(key)}`, String(key));
  }
}

function checkEntry(key: string, value: string): void {
  checkKey(key);
  if (typeof value !== "string") throw new TypeError("storage value must be a string");
}

function checkRevision(revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new TypeError(`revision must be a non-negative integer, got ${revision}`);
  }
}

function checkPositive(name: string, value: number | undefined, zeroOk: boolean): void {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || value < 0 || (!zeroOk && value === 0)) {
    throw new Error(
      `storage option ${name} must be a ${zeroOk ? "non-negative" : "positive"} integer`,
    );
  }
}
