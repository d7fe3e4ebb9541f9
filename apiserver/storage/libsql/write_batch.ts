/**
 * One group-commit write transaction, as two statements whatever the batch size (below
 * SQLite's variable limit): one read of the revision counter, the durability setting and every
 * key the batch touches, then one multi-row insert into the log, whose trigger updates `kv`
 * and the counter (`schema.ts`). `@libsql/client` prepares every statement anew and builds
 * its results slowly, so statements per transaction, not rows, set the fixed cost.
 * {@link writeBatch} runs on the storage's thread for a libSQL server; for an embedded file the
 * same plan ({@link planWrites}) and statements run on the synchronous driver
 * (`sync_batch_writer.ts`), inline or in the write worker. Everything it takes and returns
 * survives structured clone.
 *
 * @module
 */
import type { Client, InStatement, Value } from "@libsql/client";
import type { SideWrites } from "../interface.ts";
import { LOG_ADDED, LOG_DELETED, LOG_MODIFIED } from "./schema.ts";
import { num, str } from "./statements.ts";

/**
 * A write requested by a caller. Ops carrying the same `group` are contiguous in a batch and
 * all-or-nothing: if one is refused, every op of the group is refused with its reason. A
 * delete marked `ifExists` of a missing key is skipped (refused "notFound") without failing
 * its group.
 */
export type WriteOp =
  & (
    | { kind: "create"; key: string; value: string }
    | { kind: "update"; key: string; value: string; expected: number }
    | { kind: "delete"; key: string; expected: number; ifExists?: boolean }
  )
  & { group?: number };

/** The ops of a write's side keys (see {@link SideWrites}): creates, then tolerant deletes. */
export function sideOps(side: SideWrites | undefined): WriteOp[] {
  return [
    ...(side?.create ?? []).map(({ key, value }): WriteOp => ({ kind: "create", key, value })),
    ...(side?.delete ?? []).map((key): WriteOp => ({
      kind: "delete",
      key,
      expected: 0,
      ifExists: true,
    })),
  ];
}

/** What happened to one write of a batch. */
export type WriteOutcome =
  | {
    /** The write's revision. */
    revision: number;
    /** Revision of the key's previous change (0 for a create). */
    prevRevision: number;
    /** The key's value before the write (absent for a create). */
    prevValue?: string;
  }
  | {
    /** Why the write was refused; the batch's other writes are unaffected. */
    refused: "exists" | "notFound" | "conflict";
    /** The key's current revision (for "conflict"). */
    currentRevision?: number;
    /** In a refused group: the key whose refusal failed it. */
    key?: string;
  };

/** Result of {@link writeBatch}. */
export interface BatchResult {
  /** One outcome per op, in order. */
  outcomes: WriteOutcome[];
  /** Writes committed (0: nothing was written and the transaction rolled back). */
  committed: number;
  /** `PRAGMA synchronous` read inside the transaction, when it was checked. */
  synchronous?: number;
  /** How long the transaction took where it ran, commit included (ms); set by the caller. */
  execMs?: number;
}

/** `PRAGMA synchronous` FULL. */
export const SYNCHRONOUS_FULL = 2;

/** SQLite's variable limit is 32766; stay well below it in one statement. */
export const MAX_VARS = 30_000;
/** Columns of one `log` row as inserted by {@link logInsertSql}. */
export const LOG_COLUMNS = 7;
/** Most `log` rows one {@link logInsertSql} statement inserts. */
export const ROWS_PER_LOG_INSERT = Math.floor(MAX_VARS / LOG_COLUMNS);

/**
 * The first columns of the read of a batch: one row (NULL key, the durability setting when
 * `checkSynchronous`, the revision counter) for {@link readSql} to put first.
 */
export function readHeadSql(checkSynchronous: boolean): string {
  return checkSynchronous
    ? "SELECT NULL, (SELECT synchronous FROM pragma_synchronous), revision FROM meta WHERE id = 1"
    : "SELECT NULL, NULL, revision FROM meta WHERE id = 1";
}

/**
 * Reads `keys` keys' `(key, value, revision)` rows, after the head row of
 * {@link readHeadSql} when `head` is given.
 */
export function readSql(head: string | undefined, keys: number): string {
  if (keys === 0) return head ?? "SELECT NULL, NULL, NULL WHERE 0";
  const rows = `SELECT key, value, revision FROM kv WHERE key IN (${placeholders(keys)})`;
  return head === undefined ? rows : `${head} UNION ALL ${rows}`;
}

/** Inserts `rows` rows of {@link LOG_COLUMNS} values into `log`. */
export function logInsertSql(rows: number): string {
  return `INSERT INTO log (revision, type, key, value, prev_revision, prev_value, time_ms)
          VALUES ${rowPlaceholders(rows, LOG_COLUMNS)}`;
}

/** The keys a batch touches, each once, in chunks small enough for one statement. */
export function keyChunks(ops: readonly WriteOp[]): string[][] {
  return chunks([...new Set(ops.map((op) => op.key))], MAX_VARS);
}

/** What {@link planWrites} decided for a batch. */
export interface WritePlan {
  /** One outcome per op, in order. */
  outcomes: WriteOutcome[];
  /** The `log` rows to insert, {@link LOG_COLUMNS} values each. */
  logArgs: Value[];
  /** Rows in `logArgs`. */
  committed: number;
}

/**
 * Decides each op of a batch against the current rows of its keys (`state`, updated in
 * place) and the revision counter `revision`; see {@link writeBatch}.
 */
export function planWrites(
  ops: readonly WriteOp[],
  revision: number,
  state: Map<string, { value: string; revision: number } | undefined>,
  timeMs: number,
): WritePlan {
  const logArgs: Value[] = [];
  let failedGroup: WriteOutcome | undefined;
  const outcomes = ops.map((op, i): WriteOutcome => {
    if (op.group !== undefined && ops[i - 1]?.group !== op.group) {
      failedGroup = groupRefusal(ops, i, state);
    }
    if (op.group !== undefined && failedGroup) return failedGroup;
    const prev = state.get(op.key);
    const refused = refusalOf(op, prev);
    if (refused) return refused;
    if (op.kind === "delete" && !prev) return { refused: "notFound" };
    revision++;
    const type = op.kind === "create"
      ? LOG_ADDED
      : op.kind === "update"
      ? LOG_MODIFIED
      : LOG_DELETED;
    const value = op.kind === "delete" ? null : op.value;
    logArgs.push(
      revision,
      type,
      op.key,
      value,
      prev?.revision ?? 0,
      prev?.value ?? null,
      timeMs,
    );
    state.set(op.key, value === null ? undefined : { value, revision });
    const outcome: WriteOutcome = { revision, prevRevision: prev?.revision ?? 0 };
    if (prev) outcome.prevValue = prev.value;
    return outcome;
  });
  return { outcomes, logArgs, committed: logArgs.length / LOG_COLUMNS };
}

/** Why `op` cannot apply to a key whose current row is `prev`, or undefined if it can. */
function refusalOf(
  op: WriteOp,
  prev: { value: string; revision: number } | undefined,
): WriteOutcome | undefined {
  if (op.kind === "create") return prev ? { refused: "exists" } : undefined;
  if (!prev) return op.kind === "delete" && op.ifExists ? undefined : { refused: "notFound" };
  if ((op.kind === "update" || op.expected !== 0) && op.expected !== prev.revision) {
    return { refused: "conflict", currentRevision: prev.revision };
  }
  return undefined;
}

/**
 * The refusal of the first op of the group starting at `start` that cannot apply, or
 * undefined if all can (a group's keys are distinct, so each is checked against `state`).
 */
function groupRefusal(
  ops: readonly WriteOp[],
  start: number,
  state: ReadonlyMap<string, { value: string; revision: number } | undefined>,
): WriteOutcome | undefined {
  for (let i = start; i < ops.length && ops[i].group === ops[start].group; i++) {
    const refused = refusalOf(ops[i], state.get(ops[i].key));
    if (refused) return { ...refused, key: ops[i].key };
  }
  return undefined;
}

/**
 * Reads a batch's rows (the head row of {@link readHeadSql} first, then `(key, value,
 * revision)` rows) into the revision counter, the durability setting and the keys' state;
 * throws if `checkSynchronous` and the setting is below FULL.
 */
export function readState(
  rowSets: ReadonlyArray<ArrayLike<ArrayLike<unknown>>>,
  checkSynchronous: boolean,
): {
  revision: number;
  synchronous: number | undefined;
  state: Map<string, { value: string; revision: number } | undefined>;
} {
  const meta = rowSets[0][0];
  let synchronous: number | undefined;
  if (checkSynchronous) {
    synchronous = num(meta[1]);
    if (synchronous < SYNCHRONOUS_FULL) {
      throw new Error(`refusing to commit with PRAGMA synchronous=${synchronous} (below FULL)`);
    }
  }
  const state = new Map<string, { value: string; revision: number } | undefined>();
  for (let i = 0; i < rowSets.length; i++) {
    const rows = rowSets[i];
    for (let j = i === 0 ? 1 : 0; j < rows.length; j++) {
      const row = rows[j];
      state.set(str(row[0]), { value: str(row[1]), revision: num(row[2]) });
    }
  }
  return { revision: num(meta[2]), synchronous, state };
}

/**
 * Applies `ops` in order in one `BEGIN IMMEDIATE` transaction: each gets the next revision or
 * is refused on its own (create of an existing key, update/delete of a missing key or at
 * another revision). With `checkSynchronous`, reads `PRAGMA synchronous` inside the
 * transaction and refuses to commit below FULL. Throws if the transaction fails (nothing of it
 * was committed).
 */
export async function writeBatch(
  client: Client,
  ops: readonly WriteOp[],
  timeMs: number,
  checkSynchronous: boolean,
): Promise<BatchResult> {
  const tx = await client.transaction("write");
  try {
    // One statement reads the counter (and the durability setting) and every key's row: the
    // first row is meta's, with a NULL key.
    const head = readHeadSql(checkSynchronous);
    const chunked = keyChunks(ops);
    const reads: InStatement[] = chunked.length === 0 ? [head] : chunked.map((chunk, i) => ({
      sql: readSql(i === 0 ? head : undefined, chunk.length),
      args: chunk,
    }));
    const rs = await tx.batch(reads);
    const { revision, synchronous, state } = readState(rs.map((r) => r.rows), checkSynchronous);
    const { outcomes, logArgs, committed } = planWrites(ops, revision, state, timeMs);
    if (committed === 0) {
      await tx.rollback();
      return { outcomes, committed, synchronous };
    }
    // The log_apply trigger applies each row to kv and the counter (schema.ts).
    const writes: InStatement[] = [];
    for (let row = 0; row < committed; row += ROWS_PER_LOG_INSERT) {
      const n = Math.min(ROWS_PER_LOG_INSERT, committed - row);
      writes.push({
        sql: logInsertSql(n),
        args: n === committed ? logArgs : logArgs.slice(row * LOG_COLUMNS, (row + n) * LOG_COLUMNS),
      });
    }
    await tx.batch(writes);
    await tx.commit();
    return { outcomes, committed, synchronous };
  } finally {
    tx.close();
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function placeholders(n: number): string {
  return new Array(n).fill("?").join(",");
}

function rowPlaceholders(rows: number, columns: number): string {
  const row = `(${placeholders(columns)})`;
  return new Array(rows).fill(row).join(",");
}
