/**
 * The libSQL storage backend: etcd semantics (one global revision, compare-and-swap writes,
 * reads at past revisions, a change log) over an embedded SQLite file or a libSQL server
 * (sqld). This is the only module that talks to `@libsql/client`.
 *
 * @module
 */
import { type Client, createClient, type InStatement, type Value } from "@libsql/client";
import {
  type ChangeEvent,
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  RevisionConflictError,
  type Storage,
  StorageError,
} from "../interface.ts";
import { clearImmediate, setImmediate } from "node:timers";
import { prefixEnd } from "./key_range.ts";
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
import { type BatchResult, writeBatch, type WriteOp } from "./write_batch.ts";
import { type ReadStatement, SyncBatchWriter } from "./sync_batch_writer.ts";
import { WorkerWriter } from "./worker_writer.ts";

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
   * disk is slow. Commits run on the caller's thread while they are fast: handing each group
   * commit to another thread and back cost more CPU and latency than the commit itself on the
   * machines measured (creates/s +18%, server CPU per create -18% inline, see
   * scripts/bench/create_list.ts). A commit slower than {@link slowCommitMs} (a stalling
   * fsync blocks the whole thread) moves the commits to the worker for
   * {@link workerWindowMs}, and each slow commit there extends the stay. Without a worker
   * (false, or where none can start) every commit runs on the caller's thread.
   */
  writeWorker?: boolean;
  /** A commit taking longer than this (ms) moves the commits to the write worker. Default 50. */
  slowCommitMs?: number;
  /** How long commits stay on the write worker after a slow commit (ms). Default 10000. */
  workerWindowMs?: number;
  /** Told of every group commit that wrote something (for metrics). */
  onGroupCommit?: (commit: GroupCommitInfo) => void;
}

/** One group commit, as {@link LibsqlStorageOptions.onGroupCommit} hears of it. */
export interface GroupCommitInfo {
  /** Where it ran: this thread, the write worker, or a libSQL server. */
  where: "inline" | "worker" | "server";
  /** Writes it committed. */
  writes: number;
  /** How long the transaction took where it ran, commit included (seconds). */
  seconds: number;
  /** Slower than `slowCommitMs` (it moved the next commits to the write worker). */
  slow: boolean;
}

/** Counters describing the write path, for tests and benchmarks. */
export interface LibsqlStorageStats {
  /** Write transactions committed (group commits and maintenance steps). */
  transactions: number;
  /** Writes (create/update/delete) committed. */
  committedWrites: number;
  /** Most writes committed in one transaction so far. */
  largestBatch: number;
  /** Transactions retried because the database was busy (another process held the lock). */
  busyRetries: number;
  /**
   * `PRAGMA synchronous` read inside the latest write transaction on an embedded file
   * (2 = FULL, 3 = EXTRA); undefined for a libSQL server, whose durability it configures itself.
   */
  lastSynchronous?: number;
  /** True when a write worker is running (it takes the commits while the disk is slow). */
  writeWorker: boolean;
  /** Group-commit transactions run on the caller's thread. */
  inlineCommits: number;
  /** Group-commit transactions run on the write worker. */
  workerCommits: number;
  /** Group commits slower than `slowCommitMs`. */
  slowCommits: number;
}

/** What one {@link LibsqlStorage.maintain} call did. */
export interface MaintenanceResult {
  /** Compacted revision after the run. */
  compactedRevision: number;
  /** Log rows removed. */
  removedChanges: number;
  /** True if a WAL checkpoint ran to completion (embedded file only). */
  checkpointed: boolean;
}

/** A write waiting for the next group commit. */
interface PendingWrite {
  op: WriteOp;
  /** The writer's in-memory form of the value, for commit listeners (never stored). */
  decoded?: unknown;
  resolve: (result: KeyValue | ChangeEvent) => void;
  reject: (error: unknown) => void;
}

/** A maintenance step run between group commits. */
interface PendingJob {
  run: () => Promise<void>;
}

/** Rows of a page read at one revision. */
interface Page {
  rows: KeyValue[];
  revision: number;
  total?: number;
}

const DEFAULT_HISTORY_WINDOW_MS = 5 * 60 * 1000;
const DEFAULT_MAINTENANCE_INTERVAL_MS = 30_000;
const DEFAULT_MAX_BATCH = 256;
const COMPACT_BATCH = 1000;
const MAX_FILTER_PAGE = 10_000;
const VACUUM_PAGES = 2000;
const BUSY_DEADLINE_MS = 30_000;
const NO_LIMIT = -1;

const DEFAULT_BUSY_TIMEOUT_MS = 1000;
const DEFAULT_SLOW_COMMIT_MS = 50;
const DEFAULT_WORKER_WINDOW_MS = 10_000;

const META_SQL = "SELECT revision, compacted FROM meta WHERE id = 1";

/** The rows of one read statement, each row's column values by position. */
interface Rows {
  rows: ArrayLike<Value>[];
}

/**
 * Write locks shared by every instance in this process that opened the same database file, so
 * they never contend inside SQLite: a write lock SQLite refuses with SQLITE_BUSY leaves the
 * refused statement active on its pooled connection until garbage collection, and every later
 * COMMIT on that connection fails with "SQL statements in progress".
 */
const fileLocks = new Map<string, { tail: Promise<void>; users: number }>();

/**
 * {@link Storage} on libSQL.
 *
 * Layout: `kv` holds the current state (a list at the latest revision is a key-range scan of
 * it, never of history), `log` holds one row per revision (type, key, value, previous revision
 * and value, commit time), and the one-row `meta` table holds the revision counter and the
 * compacted revision. Every write reads and bumps the counter inside its `BEGIN IMMEDIATE`
 * transaction, so revisions stay gap-free and compare-and-swap holds even with several
 * processes sharing one sqld.
 *
 * Group commit: writes arriving while a transaction runs wait and are committed together in
 * the next one (at most `maxBatch`); each gets its own revision and a failed compare-and-swap
 * rejects only that write. One write transaction runs at a time per instance; maintenance
 * steps (compaction in batches of 1000 revisions, WAL checkpoint, incremental vacuum) take
 * turns with them. Committed changes reach `onCommit` listeners in revision order, after
 * commit and before the writers' promises settle.
 *
 * Durability: SQLite's default `synchronous=FULL` is never lowered (the client pools
 * connections and a PRAGMA would reach only one of them); every write transaction on an
 * embedded file reads it back and refuses to commit below FULL. sqld manages durability itself
 * (it runs `synchronous=NORMAL` on its WAL and rejects PRAGMA synchronous from clients).
 * Instances in one process that share a file take turns through an in-process lock; another
 * process holding the write lock is waited for by SQLite's busy timeout (`busyTimeoutMs`), then
 * retried with backoff.
 *
 * Threading: the embedded driver is synchronous underneath, so on an embedded file the group
 * commits run on a write worker (`write_worker.ts`, its own connection; one message each way
 * per batch) and a commit's fsync no longer blocks request handling; reads stay on this
 * thread (WAL readers never wait for the writer). Each transaction is a handful of statements
 * whatever its size (`write_batch.ts`): `@libsql/client` prepares every statement anew, so
 * per-op statements made the fixed cost. Measured on the shared 2-vCPU VM with the create
 * benchmark (16 clients, 1 KiB ConfigMaps): server CPU per create 0.87 → 0.63–0.68 ms and
 * creates/s 410 → 1150 (median of 3 rounds; the machine's speed varies 2–3× between runs).
 * Without a Worker (`writeWorker: false`, or where one cannot start, e.g. a compiled binary
 * without the worker module) commits run on this thread. The write loop yields to the event
 * loop between transactions (see below), without which a writer looping without I/O starved
 * timers completely.
 */
export class LibsqlStorage implements Storage {
  readonly #client: Client;
  readonly #embedded: boolean;
  readonly #historyWindowMs: number;
  readonly #now: () => number;
  readonly #maxBatch: number;
  readonly #maintenanceIntervalMs: number;
  readonly #listeners = new Set<(events: ChangeEvent[]) => void>();
  #writes: PendingWrite[] = [];
  #jobs: PendingJob[] = [];
  #pumping = false;
  #idle: Promise<void> = Promise.resolve();
  #markIdle: () => void = () => {};
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #maintaining: Promise<unknown> | undefined;
  #lockKey: string | undefined;
  #turnTimer: ReturnType<typeof setImmediate> | undefined;
  #turnWaiters: Array<() => void> = [];
  #writer: WorkerWriter | undefined;
  /** Embedded file: this thread's own writing connection (statements prepared once). */
  #inline: SyncBatchWriter | undefined;
  #stats: LibsqlStorageStats = {
    transactions: 0,
    committedWrites: 0,
    largestBatch: 0,
    busyRetries: 0,
    writeWorker: false,
    inlineCommits: 0,
    workerCommits: 0,
    slowCommits: 0,
  };
  readonly #slowCommitMs: number;
  readonly #workerWindowMs: number;
  readonly #onGroupCommit: ((commit: GroupCommitInfo) => void) | undefined;
  /** Commits go to the write worker until this time (ms, storage clock). */
  #workerUntil = -Infinity;

  private constructor(client: Client, embedded: boolean, opts: LibsqlStorageOptions) {
    this.#client = client;
    this.#embedded = embedded;
    this.#historyWindowMs = opts.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.#now = opts.now ?? Date.now;
    this.#maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    this.#maintenanceIntervalMs = opts.maintenanceIntervalMs ?? DEFAULT_MAINTENANCE_INTERVAL_MS;
    this.#slowCommitMs = opts.slowCommitMs ?? DEFAULT_SLOW_COMMIT_MS;
    this.#workerWindowMs = opts.workerWindowMs ?? DEFAULT_WORKER_WINDOW_MS;
    this.#onGroupCommit = opts.onGroupCommit;
  }

  /**
   * Opens (creating if needed) the database at `opts.url`, creates the schema and starts
   * background maintenance. Throws a clear Error for a bad URL or option.
   */
  static async open(opts: LibsqlStorageOptions): Promise<LibsqlStorage> {
    const url = typeof opts?.url === "string" ? opts.url.trim() : "";
    const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
    const remote = ["libsql", "ws", "wss", "http", "https"];
    if (scheme !== "file" && !remote.includes(scheme ?? "")) {
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
    let client: Client | undefined;
    let storage: LibsqlStorage | undefined;
    try {
      // The embedded client opens a first connection right away and throws if it cannot.
      const busy = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
      client = createClient({
        url,
        ...(opts.authToken ? { authToken: opts.authToken } : {}),
        ...(scheme === "file" ? { timeout: busy } : {}),
      });
      const s = storage = new LibsqlStorage(client, scheme === "file", opts);
      await s.#withBusyRetry(async () => {
        if (s.#embedded) {
          for (const pragma of FILE_PRAGMAS) await client?.execute(pragma);
        }
        await migrateKv(client!);
        await client?.batch([...SCHEMA_STATEMENTS], "write");
      });
      if (s.#embedded) {
        s.#inline = SyncBatchWriter.open(url, busy);
        if (opts.writeWorker !== false) {
          try {
            s.#writer = await WorkerWriter.start(url, busy);
            s.#stats.writeWorker = true;
          } catch {
            // No Worker here (e.g. a compiled binary without the worker module): commit on
            // this thread.
          }
        }
        s.#acquireFileLock(url);
      }
      s.#scheduleMaintenance();
      return s;
    } catch (e) {
      if (storage) {
        await storage.#writer?.close();
        storage.#inline?.close();
      }
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
      const [rs] = await this.#read([{
        sql: "SELECT value, revision FROM kv WHERE key = ?",
        args: [key],
      }]);
      const row = rs.rows[0];
      return row ? { key, value: str(row[0]), revision: num(row[1]) } : undefined;
    }
    checkRevision(revision);
    const [meta, rs] = await this.#read([
      META_SQL,
      {
        sql: `SELECT value, revision FROM kv WHERE key = ?1 AND revision <= ?2
          UNION ALL
          SELECT prev_value, prev_revision FROM (
            SELECT prev_value, prev_revision FROM log WHERE key = ?1 AND revision > ?2
            ORDER BY revision LIMIT 1
          ) WHERE prev_value IS NOT NULL`,
        args: [key, revision],
      },
    ]);
    checkReadable(revision, num(meta.rows[0][0]), num(meta.rows[0][1]));
    const row = rs.rows[0];
    return row ? { key, value: str(row[0]), revision: num(row[1]) } : undefined;
  }

  /** {@inheritDoc Storage.list} */
  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    if (typeof prefix !== "string") throw new TypeError("list prefix must be a string");
    const { startKey, filter } = opts;
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
    const upper = prefixEnd(prefix);
    const wantCount = opts.count === true && filter === undefined;
    let revision = opts.revision;
    let lower = startKey ?? prefix;
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
  async create(key: string, value: string, decoded?: unknown): Promise<KeyValue> {
    checkKey(key);
    checkValue(value);
    return await this.#enqueue<KeyValue>({ kind: "create", key, value }, decoded);
  }

  /** {@inheritDoc Storage.update} */
  async update(
    key: string,
    value: string,
    expectedRevision: number,
    decoded?: unknown,
  ): Promise<KeyValue> {
    checkKey(key);
    checkValue(value);
    checkRevision(expectedRevision);
    return await this.#enqueue<KeyValue>(
      { kind: "update", key, value, expected: expectedRevision },
      decoded,
    );
  }

  /** {@inheritDoc Storage.delete} */
  async delete(key: string, expectedRevision: number): Promise<ChangeEvent> {
    checkKey(key);
    checkRevision(expectedRevision);
    return await this.#enqueue<ChangeEvent>({ kind: "delete", key, expected: expectedRevision });
  }

  /** {@inheritDoc Storage.changesSince} */
  async changesSince(afterRevision: number, limit: number): Promise<ChangeEvent[]> {
    checkRevision(afterRevision);
    if (!Number.isSafeInteger(limit) || limit <= 0) {
      throw new TypeError(`changesSince limit must be a positive integer, got ${limit}`);
    }
    const [meta, rs] = await this.#read([
      META_SQL,
      {
        sql: `SELECT revision, type, key, value, prev_revision, prev_value FROM log
          WHERE revision > ? ORDER BY revision LIMIT ?`,
        args: [afterRevision, limit],
      },
    ]);
    const compacted = num(meta.rows[0][1]);
    if (afterRevision < compacted) throw new CompactedError(afterRevision, compacted);
    return rs.rows.map((row) => {
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
    });
  }

  /** {@inheritDoc Storage.onCommit} */
  onCommit(listener: (events: ChangeEvent[]) => void): () => void {
    const wrapped = (events: ChangeEvent[]) => listener(events);
    this.#listeners.add(wrapped);
    return () => this.#listeners.delete(wrapped);
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
    while (await this.#runJob(() => this.#compactStep(() => revision)) > 0) {
      // next step
    }
  }

  /**
   * Runs one round of maintenance now: compacts history older than the window, then (embedded
   * file) reclaims free pages and checkpoints the WAL. The background timer calls this; tests
   * call it with an injected clock.
   */
  async maintain(): Promise<MaintenanceResult> {
    let removed = 0;
    for (;;) {
      const n = await this.#runJob(() => this.#compactStep(undefined));
      if (n === 0) break;
      removed += n;
    }
    let checkpointed = false;
    if (this.#embedded) {
      await this.#runJob(() => this.#vacuumStep());
      checkpointed = await this.#runJob(() => this.#checkpoint());
    }
    return {
      compactedRevision: (await this.#meta()).compacted,
      removedChanges: removed,
      checkpointed,
    };
  }

  /** {@inheritDoc Storage.ping} */
  async ping(): Promise<void> {
    await this.#withBusyRetry(() => this.#client.execute("SELECT 1"));
  }

  /** {@inheritDoc Storage.close} */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#maintaining?.catch(() => {});
    await this.#idle;
    if (this.#turnTimer !== undefined) clearImmediate(this.#turnTimer);
    this.#turnTimer = undefined;
    await this.#writer?.close();
    this.#inline?.close();
    this.#inline = undefined;
    this.#client.close();
    this.#releaseFileLock();
  }

  // ---- reads ----

  async #meta(): Promise<{ revision: number; compacted: number }> {
    const [rs] = await this.#read([META_SQL]);
    return { revision: num(rs.rows[0][0]), compacted: num(rs.rows[0][1]) };
  }

  /**
   * Runs read statements in one read transaction (one snapshot). An embedded file is read
   * through the connection this thread commits on, whose statements are prepared once: through
   * `@libsql/client`, which prepares every statement anew and builds an object per row, a get
   * by key cost about a fifth of the server's CPU per GET request.
   */
  #read(stmts: InStatement[]): Promise<Rows[]> {
    return this.#withBusyRetry<Rows[]>(() => {
      const inline = this.#inline;
      if (inline) {
        return Promise.resolve(
          inline.read(stmts as ReadStatement[]).map((rows) => ({ rows: rows as Value[][] })),
        );
      }
      return this.#client.batch(stmts, "deferred");
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
    const lowerOp = inclusive ? ">=" : ">";
    const upperCond = upper === undefined ? "" : "AND key < ?2";
    const args = [lower, upper ?? "", limit, revision ?? 0];
    let source: string;
    // The count reads keys only: it walks kv's narrow key index instead of every value
    // (counting 10k rows of 1 KiB through the table took ~17 ms). At a past revision R it
    // corrects that count with the keys changed since: each such key's first change after R
    // says whether it existed at R (a previous value), kv whether it exists now.
    let countSql: string;
    const keyCount = `SELECT COUNT(*) FROM kv WHERE key ${lowerOp} ?1 ${upperCond}`;
    if (revision === undefined) {
      source = `SELECT key, value, revision FROM kv WHERE key ${lowerOp} ?1 ${upperCond}`;
      countSql = keyCount;
    } else {
      // A key's state at R: its current row if that is not newer than R; otherwise the value
      // before its earliest change after R (absent if it was created after R or deleted at R).
      // The changes after R are read by revision (the log's rowid: NOT INDEXED keeps SQLite
      // from walking the key index through every later key instead), so a page at a past
      // revision costs what the changes since then cost, not what the rest of the log does.
      const logUpper = upper === undefined ? "" : "AND l.key < ?2";
      const firstChanges = `FROM log l NOT INDEXED
          WHERE l.key ${lowerOp} ?1 ${logUpper} AND l.revision > ?4
          AND NOT EXISTS (SELECT 1 FROM log e
            WHERE e.key = l.key AND e.revision > ?4 AND e.revision < l.revision)`;
      source = `SELECT key, value, revision FROM kv
          WHERE key ${lowerOp} ?1 ${upperCond} AND revision <= ?4
        UNION ALL
        SELECT l.key, l.prev_value, l.prev_revision ${firstChanges}
          AND l.prev_value IS NOT NULL`;
      countSql = `SELECT (${keyCount}) + (SELECT COALESCE(SUM(
          (l.prev_value IS NOT NULL) - EXISTS (SELECT 1 FROM kv k WHERE k.key = l.key)), 0)
        ${firstChanges})`;
    }
    const stmts: InStatement[] = [
      META_SQL,
      numbered(`SELECT key, value, revision FROM (${source}) ORDER BY key LIMIT ?3`, args),
    ];
    if (count) stmts.push(numbered(countSql, args));
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

  // ---- writes ----

  #enqueue<T extends KeyValue | ChangeEvent>(op: WriteOp, decoded?: unknown): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("storage is closed"));
    return new Promise<T>((resolve, reject) => {
      this.#writes.push({
        op,
        decoded,
        resolve: resolve as (r: KeyValue | ChangeEvent) => void,
        reject,
      });
      this.#kick();
    });
  }

  /** Queues a maintenance step to run between group commits; resolves with its result. */
  #runJob<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#jobs.push({ run: () => fn().then(resolve, reject) });
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    this.#idle = new Promise((resolve) => this.#markIdle = resolve);
    this.#pump();
  }

  async #pump(): Promise<void> {
    let jobTurn = false;
    try {
      while (this.#writes.length > 0 || this.#jobs.length > 0) {
        await this.#nextTurn();
        if (this.#jobs.length > 0 && (jobTurn || this.#writes.length === 0)) {
          const job = this.#jobs.shift();
          if (job) await this.#withFileLock(job.run);
          jobTurn = false;
        } else {
          const batch = this.#writes.splice(0, this.#maxBatch);
          await this.#withFileLock(() => this.#commitBatch(batch));
          jobTurn = true;
        }
      }
    } finally {
      this.#pumping = false;
      this.#markIdle();
    }
  }

  /**
   * Waits for the end of the current event-loop turn (setImmediate) before each transaction.
   * Writes from requests that arrived together join one group commit instead of the first
   * committing alone: in alternating create-benchmark runs this gave 4% more creates/s for the
   * same raw ceiling and less CPU per create (4 runs of 5). It also keeps back-to-back
   * transactions of the synchronous embedded driver from running as one chain of microtasks
   * that would starve timers and I/O.
   */
  async #nextTurn(): Promise<void> {
    this.#turnTimer ??= setImmediate(() => {
      this.#turnTimer = undefined;
      const waiters = this.#turnWaiters;
      this.#turnWaiters = [];
      for (const wake of waiters) wake();
    });
    await new Promise<void>((resolve) => this.#turnWaiters.push(resolve));
  }

  async #commitBatch(batch: PendingWrite[]): Promise<void> {
    const ops = batch.map((w) => w.op);
    const time = this.#now();
    let res: BatchResult;
    const writer = this.#writer && this.#now() < this.#workerUntil ? this.#writer : undefined;
    try {
      res = await this.#withBusyRetry(async () => {
        if (writer) return await writer.write(ops, time);
        const started = performance.now();
        const r = this.#inline
          ? this.#inline.write(ops, time)
          : await writeBatch(this.#client, ops, time, this.#embedded);
        r.execMs = performance.now() - started;
        return r;
      });
    } catch (e) {
      const error = new Error(`storage write failed: ${errorMessage(e)}`, { cause: e });
      for (const w of batch) w.reject(error);
      return;
    }
    if (res.synchronous !== undefined) this.#stats.lastSynchronous = res.synchronous;
    if (writer) this.#stats.workerCommits++;
    else this.#stats.inlineCommits++;
    const slow = (res.execMs ?? 0) > this.#slowCommitMs;
    if (slow) {
      this.#stats.slowCommits++;
      if (this.#writer) this.#workerUntil = this.#now() + this.#workerWindowMs;
    }
    if (this.#onGroupCommit && res.committed > 0) {
      try {
        this.#onGroupCommit({
          where: writer ? "worker" : this.#embedded ? "inline" : "server",
          writes: res.committed,
          seconds: (res.execMs ?? 0) / 1000,
          slow,
        });
      } catch (e) {
        console.error(`storage onGroupCommit failed: ${errorMessage(e)}`);
      }
    }
    const events: ChangeEvent[] = [];
    const settle: Array<() => void> = [];
    batch.forEach((w, i) => {
      const { op } = w;
      const outcome = res.outcomes[i];
      if ("refused" in outcome) {
        const error = outcome.refused === "exists"
          ? new KeyExistsError(`key ${op.key} already exists`, op.key)
          : outcome.refused === "notFound"
          ? new KeyNotFoundError(`key ${op.key} not found`, op.key)
          : new RevisionConflictError(
            `key ${op.key} is at revision ${outcome.currentRevision}, not ${
              (op as { expected: number }).expected
            }`,
            op.key,
            outcome.currentRevision ?? 0,
          );
        settle.push(() => w.reject(error));
        return;
      }
      const event: ChangeEvent = {
        type: op.kind === "create" ? "ADDED" : op.kind === "update" ? "MODIFIED" : "DELETED",
        key: op.key,
        value: op.kind === "delete" ? outcome.prevValue ?? "" : op.value,
        revision: outcome.revision,
        prevRevision: outcome.prevRevision,
      };
      if (outcome.prevValue !== undefined) event.prevValue = outcome.prevValue;
      if (w.decoded !== undefined) event.decoded = w.decoded;
      events.push(event);
      const result: KeyValue | ChangeEvent = op.kind === "delete"
        ? event
        : { key: op.key, value: op.value, revision: outcome.revision };
      settle.push(() => w.resolve(result));
    });
    if (events.length > 0) {
      this.#stats.transactions++;
      this.#stats.committedWrites += events.length;
      this.#stats.largestBatch = Math.max(this.#stats.largestBatch, events.length);
      for (const listener of [...this.#listeners]) {
        try {
          listener(events);
        } catch (e) {
          console.error(`storage onCommit listener failed: ${errorMessage(e)}`);
        }
      }
    }
    for (const s of settle) s();
  }

  // ---- maintenance ----

  /**
   * Compacts one batch of at most 1000 revisions, up to `target()` (or, when undefined, up to
   * the last revision committed before the history window). Returns the log rows removed.
   */
  async #compactStep(target: (() => number) | undefined): Promise<number> {
    return await this.#withBusyRetry(async () => {
      const tx = await this.#client.transaction("write");
      try {
        const [meta] = await tx.batch([META_SQL]);
        const compacted = num(meta.rows[0][1]);
        let stop: number;
        if (target) {
          stop = Math.min(target(), compacted + COMPACT_BATCH, num(meta.rows[0][0]));
        } else {
          const cut = this.#now() - this.#historyWindowMs;
          const [rs] = await tx.batch([{
            sql: "SELECT revision, time_ms FROM log WHERE revision > ? ORDER BY revision LIMIT ?",
            args: [compacted, COMPACT_BATCH],
          }]);
          stop = compacted;
          for (const row of rs.rows) {
            if (num(row[1]) >= cut) break;
            stop = num(row[0]);
          }
        }
        if (stop <= compacted) {
          await tx.rollback();
          return 0;
        }
        const [deleted] = await tx.batch([
          { sql: "DELETE FROM log WHERE revision <= ?", args: [stop] },
          { sql: "UPDATE meta SET compacted = ? WHERE id = 1", args: [stop] },
        ]);
        await tx.commit();
        this.#stats.transactions++;
        // A step that only advances the mark over an empty stretch still counts as progress.
        return Math.max(deleted.rowsAffected, 1);
      } finally {
        tx.close();
      }
    });
  }

  /** Returns free pages to the file system (the database was created with auto_vacuum). */
  async #vacuumStep(): Promise<void> {
    await this.#withBusyRetry(async () => {
      const rs = await this.#client.execute("PRAGMA freelist_count");
      if (num(rs.rows[0][0]) > 0) {
        // Through executeMultiple (sqlite3_exec): a prepared statement would be stepped once,
        // freeing one page and leaving the statement holding the table lock.
        await this.#client.executeMultiple(`PRAGMA incremental_vacuum(${VACUUM_PAGES});`);
      }
    });
  }

  /** Checkpoints the WAL and truncates it to zero bytes. Returns false if readers held it. */
  async #checkpoint(): Promise<boolean> {
    if (this.#writes.length > 0) return false;
    try {
      const rs = await this.#client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      return num(rs.rows[0]?.[0] ?? 1) === 0;
    } catch (e) {
      if (isBusy(e)) return false;
      throw e;
    }
  }

  #scheduleMaintenance(): void {
    if (this.#maintenanceIntervalMs === 0 || this.#closed) return;
    const timer = setTimeout(() => {
      this.#timer = undefined;
      this.#maintaining = this.maintain()
        .catch((e) => {
          if (!this.#closed) console.error(`storage maintenance failed: ${errorMessage(e)}`);
        })
        .finally(() => {
          this.#maintaining = undefined;
          this.#scheduleMaintenance();
        });
    }, this.#maintenanceIntervalMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Runs `fn`, retrying with backoff while the database is busy (locked by another process). */
  async #withBusyRetry<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = performance.now() + BUSY_DEADLINE_MS;
    for (let delay = 2;; delay = Math.min(delay * 2, 100)) {
      try {
        return await fn();
      } catch (e) {
        if (!isBusy(e) || performance.now() > deadline || this.#closedHard()) throw e;
        this.#stats.busyRetries++;
        await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
      }
    }
  }

  #acquireFileLock(url: string): void {
    let path = url.slice("file:".length).replace(/[?#].*$/, "");
    if (path.startsWith("//")) path = path.slice(2);
    try {
      path = Deno.realPathSync(path);
    } catch {
      // keep the path as given
    }
    const lock = fileLocks.get(path) ?? { tail: Promise.resolve(), users: 0 };
    lock.users++;
    fileLocks.set(path, lock);
    this.#lockKey = path;
  }

  #releaseFileLock(): void {
    const key = this.#lockKey;
    const lock = key === undefined ? undefined : fileLocks.get(key);
    if (key === undefined || !lock) return;
    this.#lockKey = undefined;
    if (--lock.users === 0) fileLocks.delete(key);
  }

  /** Runs `fn` holding the in-process write lock of this database file (if embedded). */
  async #withFileLock<T>(fn: () => Promise<T>): Promise<T> {
    const lock = this.#lockKey === undefined ? undefined : fileLocks.get(this.#lockKey);
    if (!lock) return await fn();
    const previous = lock.tail;
    let release = () => {};
    lock.tail = new Promise<void>((resolve) => release = resolve);
    try {
      await previous;
      return await fn();
    } finally {
      release();
    }
  }

  #closedHard(): boolean {
    return this.#client.closed;
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

/** A statement with numbered parameters (?1, ?2...), bound to as many args as it uses. */
function numbered(sql: string, args: Array<string | number>): InStatement {
  const used = Math.max(0, ...Array.from(sql.matchAll(/\?(\d+)/g), (m) => Number(m[1])));
  return { sql, args: args.slice(0, used) };
}

function result(items: KeyValue[], revision: number, more: boolean, total?: number): ListResult {
  const out: ListResult = { items, revision, more };
  if (total !== undefined) out.remaining = Math.max(0, total - items.length);
  return out;
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

function checkValue(value: string): void {
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

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  const text = `${typeof code === "string" ? code : ""} ${errorMessage(e)}`;
  return /SQLITE_BUSY|SQLITE_LOCKED|database is locked/i.test(text);
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function num(v: Value | undefined): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") return Number(v);
  return 0;
}

function str(v: Value | undefined): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (v instanceof ArrayBuffer) return new TextDecoder().decode(v);
  return String(v);
}
