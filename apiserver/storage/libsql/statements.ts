/**
 * The SQL of the storage's reads and maintenance (the statements of a group commit are in
 * `write_batch.ts`), over the tables of `schema.ts`, and the conversion of the column values
 * the drivers return. Statements are plain text with `?` or numbered `?N` parameters, so both
 * `@libsql/client` and the synchronous driver (`sync_batch_writer.ts`) run them.
 *
 * @module
 */
import type { InStatement } from "@libsql/client";

/** The revision counter and the compacted revision, in that order. */
export const META_SQL = "SELECT revision, compacted FROM meta WHERE id = 1";

/** A key's current `(value, revision)`: `?` the key. */
export const GET_SQL = "SELECT value, revision FROM kv WHERE key = ?";

/**
 * A key's `(value, revision)` at a past revision: its current row if that is not newer, else
 * the value before its first change after that revision (none if it did not exist then).
 * `?1` the key, `?2` the revision.
 */
export const GET_AT_REVISION_SQL = `SELECT value, revision FROM kv WHERE key = ?1 AND revision <= ?2
          UNION ALL
          SELECT prev_value, prev_revision FROM (
            SELECT prev_value, prev_revision FROM log WHERE key = ?1 AND revision > ?2
            ORDER BY revision LIMIT 1
          ) WHERE prev_value IS NOT NULL`;

/** Changes after a revision, oldest first: `?` after which revision, `?` at most how many. */
export const CHANGES_SINCE_SQL =
  `SELECT revision, type, key, value, prev_revision, prev_value FROM log
          WHERE revision > ? ORDER BY revision LIMIT ?`;

/** Log revisions and commit times after a revision: `?` after which revision, `?` how many. */
export const LOG_TIMES_SQL =
  "SELECT revision, time_ms FROM log WHERE revision > ? ORDER BY revision LIMIT ?";

/** Removes history up to and including a revision (`?`). */
export const COMPACT_LOG_SQL = "DELETE FROM log WHERE revision <= ?";

/** Records the compacted revision (`?`). */
export const SET_COMPACTED_SQL = "UPDATE meta SET compacted = ? WHERE id = 1";

/** Free pages in the file (embedded file only). */
export const FREELIST_SQL = "PRAGMA freelist_count";

/** Checkpoints the WAL and truncates it to zero bytes (embedded file only). */
export const CHECKPOINT_SQL = "PRAGMA wal_checkpoint(TRUNCATE)";

/** Returns up to `pages` free pages to the file system (embedded file only). */
export function incrementalVacuumSql(pages: number): string {
  return `PRAGMA incremental_vacuum(${pages});`;
}

/**
 * The statements of one page of a list, read in one snapshot: {@link META_SQL}, then the
 * `(key, value, revision)` rows of keys in [lower, upper) (lower exclusive unless `inclusive`)
 * at `revision` (latest if undefined), in key order, at most `limit` (-1: all), then, when
 * `count`, the number of all keys in that range at that revision.
 */
export function pageStatements(
  revision: number | undefined,
  lower: string,
  inclusive: boolean,
  upper: string | undefined,
  limit: number,
  count: boolean,
): InStatement[] {
  const lowerOp = inclusive ? ">=" : ">";
  const upperCond = upper === undefined ? "" : "AND key < ?2";
  const args = [lower, upper ?? "", limit, revision ?? 0];
  let source: string;
  // The count reads keys only: it walks kv's narrow key index instead of every value. At a
  // past revision R it corrects that count with the keys changed since: each such key's first
  // change after R says whether it existed at R (a previous value), kv whether it exists now.
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
  return stmts;
}

/** A statement with numbered parameters (?1, ?2...), bound to as many args as it uses. */
function numbered(sql: string, args: Array<string | number>): InStatement {
  const used = Math.max(0, ...Array.from(sql.matchAll(/\?(\d+)/g), (m) => Number(m[1])));
  return { sql, args: args.slice(0, used) };
}

/** A column value as a number (integers may come as bigint or text); 0 for anything else. */
export function num(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") return Number(v);
  return 0;
}

/** A column value as a string (UTF-8 for bytes); "" for NULL. */
export function str(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (v instanceof ArrayBuffer || v instanceof Uint8Array) return new TextDecoder().decode(v);
  return String(v);
}
