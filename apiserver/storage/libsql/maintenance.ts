/**
 * Compaction and upkeep of a {@link LibsqlStorage} database: history older than the window is
 * removed in steps of at most 1000 revisions, each its own write transaction; on an embedded
 * file, free pages go back to the file system (the file was created with
 * `auto_vacuum=INCREMENTAL`) and the WAL is checkpointed and truncated. Every step is queued
 * on the {@link Committer} and takes turns with the group commits, so neither a long
 * compaction nor a burst of writes holds the other back for long. A timer runs a round
 * periodically; tests call {@link Maintenance.run} with an injected clock.
 *
 * @module
 */
import type { Client, Transaction } from "@libsql/client";
import { type BusyRetry, errorMessage, isBusy } from "./busy_retry.ts";
import type { Committer, LibsqlStorageStats } from "./committer.ts";
import {
  CHECKPOINT_SQL,
  COMPACT_LOG_SQL,
  FREELIST_SQL,
  incrementalVacuumSql,
  LOG_TIMES_SQL,
  META_SQL,
  num,
  SET_COMPACTED_SQL,
} from "./statements.ts";

/** Most revisions one compaction step removes (one transaction). */
const COMPACT_BATCH = 1000;
/** Most free pages one step returns to the file system. */
const VACUUM_PAGES = 2000;

/** What one {@link Maintenance.run} (and `LibsqlStorage.maintain`) did. */
export interface MaintenanceResult {
  /** Compacted revision after the run. */
  compactedRevision: number;
  /** Log rows removed. */
  removedChanges: number;
  /** True if a WAL checkpoint ran to completion (embedded file only). */
  checkpointed: boolean;
}

/** What {@link Maintenance} works on. */
export interface MaintenanceOptions {
  client: Client;
  /** An embedded file (vacuum and WAL checkpoint apply). */
  embedded: boolean;
  committer: Committer;
  busy: BusyRetry;
  /** Updated in place (each compaction step counts as a transaction). */
  stats: LibsqlStorageStats;
  /** Clock in ms since the epoch, compared with the commit times in the log. */
  now: () => number;
  /** How long history stays readable (ms). */
  historyWindowMs: number;
  /** Period of the background rounds (ms); 0: none. */
  intervalMs: number;
  /** Reads the compacted revision (for the result of a round). */
  compactedRevision: () => Promise<number>;
}

/** Compaction steps, vacuum, WAL checkpoints, and the timer that runs them. */
export class Maintenance {
  readonly #opts: MaintenanceOptions;
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<unknown> | undefined;

  constructor(opts: MaintenanceOptions) {
    this.#opts = opts;
  }

  /** Compacts history at or below `revision`, step by step between group commits. */
  async compactTo(revision: number): Promise<void> {
    const committer = this.#opts.committer;
    while (await committer.runJob(() => this.#compactStep(() => revision)) > 0) {
      // next step
    }
  }

  /**
   * Runs one round now: compacts history older than the window, then (embedded file)
   * reclaims free pages and checkpoints the WAL.
   */
  async run(): Promise<MaintenanceResult> {
    const committer = this.#opts.committer;
    let removed = 0;
    for (;;) {
      const n = await committer.runJob(() => this.#compactStep(undefined));
      if (n === 0) break;
      removed += n;
    }
    let checkpointed = false;
    if (this.#opts.embedded) {
      await committer.runJob(() => this.#vacuumStep());
      checkpointed = await committer.runJob(() => this.#checkpoint());
    }
    return {
      compactedRevision: await this.#opts.compactedRevision(),
      removedChanges: removed,
      checkpointed,
    };
  }

  /** Runs {@link run} every `intervalMs` (not keeping the process alive) until {@link stop}. */
  schedule(): void {
    if (this.#opts.intervalMs === 0 || this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.run()
        .catch((e) => {
          if (!this.#stopped) console.error(`storage maintenance failed: ${errorMessage(e)}`);
        })
        .finally(() => {
          this.#running = undefined;
          this.schedule();
        });
    }, this.#opts.intervalMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Stops the timer and waits for a round in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => {});
  }

  /**
   * Compacts one batch of at most 1000 revisions, up to `target()` (or, when undefined, up to
   * the last revision committed before the history window). Returns the log rows removed.
   */
  async #compactStep(target: (() => number) | undefined): Promise<number> {
    const { client, busy, stats } = this.#opts;
    return await busy.run(async () => {
      const tx = await client.transaction("write");
      try {
        const [meta] = await tx.batch([META_SQL]);
        const compacted = num(meta.rows[0][1]);
        const stop = target
          ? Math.min(target(), compacted + COMPACT_BATCH, num(meta.rows[0][0]))
          : await this.#windowEnd(tx, compacted);
        if (stop <= compacted) {
          await tx.rollback();
          return 0;
        }
        const [deleted] = await tx.batch([
          { sql: COMPACT_LOG_SQL, args: [stop] },
          { sql: SET_COMPACTED_SQL, args: [stop] },
        ]);
        await tx.commit();
        stats.transactions++;
        // A step that only advances the mark over an empty stretch still counts as progress.
        return Math.max(deleted.rowsAffected, 1);
      } finally {
        tx.close();
      }
    });
  }

  /**
   * The last revision, at most 1000 after `compacted`, committed before the history window
   * (`compacted` when there is none).
   */
  async #windowEnd(tx: Transaction, compacted: number): Promise<number> {
    const cut = this.#opts.now() - this.#opts.historyWindowMs;
    const [rs] = await tx.batch([{ sql: LOG_TIMES_SQL, args: [compacted, COMPACT_BATCH] }]);
    let stop = compacted;
    for (const row of rs.rows) {
      if (num(row[1]) >= cut) break;
      stop = num(row[0]);
    }
    return stop;
  }

  /** Returns free pages to the file system. */
  async #vacuumStep(): Promise<void> {
    const client = this.#opts.client;
    await this.#opts.busy.run(async () => {
      const rs = await client.execute(FREELIST_SQL);
      if (num(rs.rows[0][0]) > 0) {
        // Through executeMultiple (sqlite3_exec): a prepared statement would be stepped once,
        // freeing one page and leaving the statement holding the table lock.
        await client.executeMultiple(incrementalVacuumSql(VACUUM_PAGES));
      }
    });
  }

  /** Checkpoints the WAL and truncates it to zero bytes. Returns false if readers held it. */
  async #checkpoint(): Promise<boolean> {
    if (this.#opts.committer.hasPendingWrites()) return false;
    try {
      const rs = await this.#opts.client.execute(CHECKPOINT_SQL);
      return num(rs.rows[0]?.[0] ?? 1) === 0;
    } catch (e) {
      if (isBusy(e)) return false;
      throw e;
    }
  }
}
