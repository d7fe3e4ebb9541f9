/**
 * Group-commit write transactions on an embedded database file through the synchronous `libsql`
 * driver (the one `@libsql/client` wraps), with every statement prepared once and reused and
 * rows read as arrays, where `@libsql/client` prepares each statement anew on every call and
 * builds an object per row. The committer (`committer.ts`) commits through one of these on the
 * storage's thread, and the write worker (`write_worker.ts`) through another; the transaction
 * does what {@link writeBatch} does (same plan, same SQL, same durability check). The storage
 * also reads through the one on its thread ({@link SyncBatchWriter.read}), for the same reason.
 *
 * @module
 */
import Database from "libsql";
import {
  type BatchResult,
  keyChunks,
  LOG_COLUMNS,
  logInsertSql,
  planWrites,
  readHeadSql,
  readSql,
  readState,
  ROWS_PER_LOG_INSERT,
  type WriteOp,
} from "./write_batch.ts";

type Connection = InstanceType<typeof Database>;
/** The part of the driver's prepared statement used here. */
interface Statement {
  readonly reader: boolean;
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  raw(on?: boolean): unknown;
}

/** A read statement: SQL alone, or SQL with arguments bound by position. */
export type ReadStatement = string | { sql: string; args: readonly unknown[] };

/** Prepared statements kept per connection (batch sizes each need their own read and insert). */
const MAX_CACHED_STATEMENTS = 128;

/**
 * The local path of an embedded database URL as `@libsql/client` reads it: `file:` then an
 * optional empty `//` authority, percent-decoded, without query or fragment.
 */
export function embeddedFilePath(url: string): string {
  const match = /^file:(\/\/([^/?#]*))?([^?#]*)/i.exec(url);
  if (!match) throw new Error(`not an embedded database URL: ${url}`);
  if (match[2]) throw new Error(`a file: URL must not name a host: ${url}`);
  const path = decodeURIComponent(match[3]);
  if (path === "") throw new Error("storage URL file: needs a path");
  return path;
}

/** One connection to an embedded file that commits {@link WriteOp} batches. */
export class SyncBatchWriter {
  readonly #db: Connection;
  readonly #statements = new Map<string, Statement>();
  readonly #begin: Statement;
  readonly #beginRead: Statement;
  readonly #commit: Statement;
  readonly #rollback: Statement;

  private constructor(db: Connection) {
    this.#db = db;
    this.#begin = db.prepare<unknown[]>("BEGIN IMMEDIATE");
    this.#beginRead = db.prepare<unknown[]>("BEGIN DEFERRED");
    this.#commit = db.prepare<unknown[]>("COMMIT");
    this.#rollback = db.prepare<unknown[]>("ROLLBACK");
  }

  /**
   * Opens `url` (`file:…`) with SQLite's busy timeout at `busyTimeoutMs`. `synchronous` stays
   * at SQLite's default, FULL; each transaction checks it.
   */
  static open(url: string, busyTimeoutMs: number): SyncBatchWriter {
    const db = new Database(embeddedFilePath(url), { timeout: busyTimeoutMs });
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      return new SyncBatchWriter(db);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /** Reads a PRAGMA on this connection (e.g. `busy_timeout`, `synchronous`). */
  pragma(name: string): unknown {
    return this.#statement(`PRAGMA ${name}`).get();
  }

  /**
   * Commits `ops` in one `BEGIN IMMEDIATE` transaction, as {@link writeBatch} does with
   * `checkSynchronous`: each op is applied or refused on its own, and nothing is committed
   * below `synchronous=FULL`. Throws (with the driver's `code`, e.g. SQLITE_BUSY) if the
   * transaction fails; nothing of it is then committed.
   */
  write(ops: readonly WriteOp[], timeMs: number): BatchResult {
    const head = readHeadSql(true);
    const chunked = keyChunks(ops);
    this.#begin.run();
    try {
      const rowSets = chunked.length === 0
        ? [this.#statement(head).all()]
        : chunked.map((chunk, i) =>
          this.#statement(readSql(i === 0 ? head : undefined, chunk.length)).all(chunk)
        );
      const { revision, synchronous, state } = readState(rowSets as unknown[][][], true);
      const { outcomes, logArgs, committed } = planWrites(ops, revision, state, timeMs);
      if (committed === 0) {
        this.#rollback.run();
        return { outcomes, committed, synchronous };
      }
      // The log_apply trigger applies each row to kv and the counter (schema.ts).
      for (let row = 0; row < committed; row += ROWS_PER_LOG_INSERT) {
        const n = Math.min(ROWS_PER_LOG_INSERT, committed - row);
        this.#statement(logInsertSql(n)).run(
          n === committed ? logArgs : logArgs.slice(row * LOG_COLUMNS, (row + n) * LOG_COLUMNS),
        );
      }
      this.#commit.run();
      return { outcomes, committed, synchronous };
    } catch (e) {
      this.#rollbackIfOpen();
      throw e;
    }
  }

  /**
   * Runs read statements (`args` bind `?` and `?NNN` parameters by position) and returns each
   * one's rows as arrays of column values. Several statements share one read transaction, so
   * they see one snapshot; one statement is a snapshot by itself. Throws (with the driver's
   * `code`, e.g. SQLITE_BUSY) if a statement fails.
   */
  read(statements: readonly ReadStatement[]): unknown[][][] {
    // Never read inside a transaction a failed write could not end: it would be a stale snapshot.
    this.#rollbackIfOpen();
    if (statements.length === 1) return [this.#rows(statements[0])];
    this.#beginRead.run();
    try {
      const out = statements.map((stmt) => this.#rows(stmt));
      this.#commit.run();
      return out;
    } catch (e) {
      this.#rollbackIfOpen();
      throw e;
    }
  }

  #rows(stmt: ReadStatement): unknown[][] {
    if (typeof stmt === "string") return this.#statement(stmt).all() as unknown[][];
    return this.#statement(stmt.sql).all(stmt.args) as unknown[][];
  }

  #rollbackIfOpen(): void {
    if (!this.#db.inTransaction) return;
    try {
      this.#rollback.run();
    } catch {
      // the connection rolls back by itself when it cannot
    }
  }

  /** Closes the connection. */
  close(): void {
    this.#statements.clear();
    this.#db.close();
  }

  /** The prepared statement of `sql` (rows as arrays), kept for reuse. */
  #statement(sql: string): Statement {
    let stmt = this.#statements.get(sql);
    if (stmt) {
      // most recently used last
      this.#statements.delete(sql);
    } else {
      stmt = this.#db.prepare<unknown[]>(sql);
      if (stmt.reader) stmt.raw(true);
      if (this.#statements.size >= MAX_CACHED_STATEMENTS) {
        this.#statements.delete(this.#statements.keys().next().value!);
      }
    }
    this.#statements.set(sql, stmt);
    return stmt;
  }
}
