/**
 * The libSQL schema of the storage: a one-row `meta` table holding the revision counter and
 * the compacted revision, the current state `kv` (one row per live key), and the change `log`
 * (one row per revision). A trigger on `log` keeps `kv` and the counter current, so a group
 * commit is one multi-row insert. Every statement is idempotent so opening an existing
 * database is a no-op.
 *
 * `kv` is a rowid table with a unique index on `key`, not a WITHOUT ROWID table: a WITHOUT
 * ROWID row lives in an index b-tree, whose cells keep at most ~1000 bytes of a 4 KiB page
 * locally, so every object of 1 KiB or more spilled into an overflow page of its own (one more
 * page of file and one more page written per create). The unique index on
 * `key` also serves key-range counts without reading values.
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
 * so PRAGMAs that shape the file are kept apart in {@link FILE_PRAGMAS}. Run after
 * {@link KV_MIGRATION} where that applies.
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
  )`,
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
  // Each change row applies itself to the current state and the counter, in insert order.
  `CREATE TRIGGER IF NOT EXISTS log_apply AFTER INSERT ON log BEGIN
    DELETE FROM kv WHERE NEW.type = ${LOG_DELETED} AND key = NEW.key;
    INSERT INTO kv (key, value, revision)
      SELECT NEW.key, NEW.value, NEW.revision WHERE NEW.type <> ${LOG_DELETED}
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision;
    UPDATE meta SET revision = NEW.revision WHERE id = 1;
  END`,
];

/** Reads the definition of `kv`, to tell whether {@link KV_MIGRATION} is needed. */
export const KV_DEFINITION_SQL =
  "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'kv'";

/** Whether a `kv` definition is the earlier WITHOUT ROWID layout. */
export function needsKvMigration(definition: string | undefined): boolean {
  return definition !== undefined && /WITHOUT\s+ROWID/i.test(definition);
}

/**
 * Rebuilds an earlier WITHOUT ROWID `kv` (and its `kv_key_revision` index) as a rowid table,
 * in one write transaction, before {@link SCHEMA_STATEMENTS} (whose trigger names `kv`).
 */
export const KV_MIGRATION: readonly string[] = [
  `CREATE TABLE kv_rowid (
    key TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL,
    revision INTEGER NOT NULL
  )`,
  "INSERT INTO kv_rowid (key, value, revision) SELECT key, value, revision FROM kv ORDER BY key",
  "DROP TABLE kv",
  "ALTER TABLE kv_rowid RENAME TO kv",
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
