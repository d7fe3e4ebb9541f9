/**
 * The libSQL schema of the storage: a one-row `meta` table holding the revision counter and
 * the compacted revision, the current state `kv` (one row per live key), and the change `log`
 * (one row per revision). Every statement is idempotent so opening an existing database is a
 * no-op.
 *
 * @module
 */

/** `log.type` values. */
export const LOG_ADDED = 0;
/** `log.type` of a modification. */
export const LOG_MODIFIED = 1;
/** `log.type` of a deletion (its `value` is NULL; `prev_value` holds the last value). */
export const LOG_DELETED = 2;

/**
 * Statements that create the schema. `auto_vacuum` must be set before the first table exists,
 * so PRAGMAs that shape the file are kept apart in {@link FILE_PRAGMAS}.
 */
export const SCHEMA_STATEMENTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL,
    compacted INTEGER NOT NULL
  )`,
  `INSERT OR IGNORE INTO meta (id, revision, compacted) VALUES (1, 0, 0)`,
  `CREATE TABLE IF NOT EXISTS kv (
    key TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL,
    revision INTEGER NOT NULL
  ) WITHOUT ROWID`,
  `CREATE TABLE IF NOT EXISTS log (
    revision INTEGER PRIMARY KEY,
    type INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT,
    prev_revision INTEGER NOT NULL,
    prev_value TEXT,
    time_ms INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision)`,
  // Narrow rows for counting a key range (remainingItemCount) without reading the values.
  `CREATE INDEX IF NOT EXISTS kv_key_revision ON kv (key, revision)`,
];

/**
 * PRAGMAs for an embedded file, run once at open before the schema. `auto_vacuum` only takes
 * effect on a database without tables and then persists in the file, as does WAL mode.
 * `synchronous` is deliberately left at SQLite's default (FULL), which every new pooled
 * connection gets.
 */
export const FILE_PRAGMAS: readonly string[] = [
  "PRAGMA auto_vacuum = INCREMENTAL",
  "PRAGMA journal_mode = WAL",
];
