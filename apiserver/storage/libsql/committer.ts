/**
 * The committer of {@link LibsqlStorage}: one queue through which every write and every
 * maintenance step reaches the database, one transaction at a time per storage instance.
 *
 * Group commit: writes that arrive while a transaction runs wait and are committed together
 * in the next one (at most `maxBatch`); each gets its own revision and a failed
 * compare-and-swap rejects only that write. Maintenance steps take turns with the group
 * commits. Before each transaction the queue waits for the end of the current event-loop turn
 * (`setImmediate`), so writes from requests that arrived together join one commit instead of
 * the first committing alone, and back-to-back transactions of the synchronous driver never
 * run as one chain of microtasks that would starve timers and I/O. Committed changes reach the
 * `onCommit` listeners in revision order, after commit and before the writers' promises
 * settle.
 *
 * Where a group commit runs. There are three places, for two kinds of database; the
 * transaction is the same plan and the same statements in all three (`write_batch.ts`):
 *
 * 1. A libSQL server (sqld): {@link writeBatch} through `@libsql/client` on this thread. The
 *    commit and its fsync happen in the server process; this thread only awaits the answer.
 *    The client is the only way to reach a server.
 * 2. An embedded file, inline (the default): {@link SyncBatchWriter} on this thread, the
 *    thread that handles requests, with statements prepared once. While the disk is fast,
 *    handing each commit to another thread and back (a thread wake-up and a structured clone
 *    each way) costs more CPU and latency than the commit itself.
 * 3. An embedded file, on the write worker ({@link WorkerWriter}, `write_worker.ts`): the same
 *    {@link SyncBatchWriter} code on a Worker with its own connection. The driver is
 *    synchronous, so an inline commit blocks this thread for its whole fsync; when the disk
 *    stalls, every request would stall with it. A commit slower than `slowCommitMs` therefore
 *    sends the commits to the worker for `workerWindowMs`, and each slow commit there extends
 *    the stay; a slow disk then blocks request handling once, not on every commit. Without a
 *    worker (`writeWorker: false`, or where none can start) every commit runs inline.
 *
 * @module
 */
import { clearImmediate, setImmediate } from "node:timers";
import type { Client } from "@libsql/client";
import {
  type ChangeEvent,
  KeyExistsError,
  KeyNotFoundError,
  type KeyValue,
  RevisionConflictError,
  StorageUnavailableError,
} from "../interface.ts";
import { type BusyRetry, errorMessage } from "./busy_retry.ts";
import type { FileLock } from "./file_lock.ts";
import type { SyncBatchWriter } from "./sync_batch_writer.ts";
import type { WorkerWriter } from "./worker_writer.ts";
import { type BatchResult, writeBatch, type WriteOp, type WriteOutcome } from "./write_batch.ts";

/** One group commit, as {@link CommitterOptions.onGroupCommit} hears of it. */
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
  /** Group-commit transactions not run on the write worker (this thread, or a server). */
  inlineCommits: number;
  /** Group-commit transactions run on the write worker. */
  workerCommits: number;
  /** Group commits slower than `slowCommitMs`. */
  slowCommits: number;
}

/** What a {@link Committer} commits through and how. */
export interface CommitterOptions {
  /** The client: group commits go through it when there is no `inline` writer (a server). */
  client: Client;
  /** Embedded file: the connection of this thread. */
  inline?: SyncBatchWriter;
  /** Embedded file: the write worker, taking the commits for a while after a slow one. */
  worker?: WorkerWriter;
  /** Embedded file: the in-process lock shared with other instances on the same file. */
  lock?: FileLock;
  busy: BusyRetry;
  /** Updated in place. */
  stats: LibsqlStorageStats;
  /** Clock in ms (commit times, the worker window). */
  now: () => number;
  /** Most writes in one transaction. */
  maxBatch: number;
  /** A commit slower than this (ms) moves the commits to the worker. */
  slowCommitMs: number;
  /** How long commits stay on the worker after a slow one (ms). */
  workerWindowMs: number;
  /** Told of every group commit that wrote something (for metrics). */
  onGroupCommit?: (commit: GroupCommitInfo) => void;
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

/** Queues writes and maintenance steps and runs them one transaction at a time. */
export class Committer {
  readonly #opts: CommitterOptions;
  readonly #stats: LibsqlStorageStats;
  readonly #listeners = new Set<(events: ChangeEvent[]) => void>();
  #writes: PendingWrite[] = [];
  #jobs: PendingJob[] = [];
  #pumping = false;
  #idle: Promise<void> = Promise.resolve();
  #markIdle: () => void = () => {};
  #refusing = false;
  #turnTimer: ReturnType<typeof setImmediate> | undefined;
  #turnWaiters: Array<() => void> = [];
  /** Commits go to the write worker until this time (ms, storage clock). */
  #workerUntil = -Infinity;
  #nextGroup = 1;

  constructor(opts: CommitterOptions) {
    this.#opts = opts;
    this.#stats = opts.stats;
  }

  /** Queues a write for the next group commit; settles once it is committed or refused. */
  enqueue<T extends KeyValue | ChangeEvent>(op: WriteOp, decoded?: unknown): Promise<T> {
    if (this.#refusing) return Promise.reject(new Error("storage is closed"));
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

  /**
   * Queues `ops` as one all-or-nothing group in the next group commit; settles with the first
   * op's result, or rejects with the refusal that failed the group. A skipped `ifExists`
   * delete does not fail it.
   */
  async enqueueGroup<T extends KeyValue | ChangeEvent>(
    ops: WriteOp[],
    decoded?: unknown,
  ): Promise<T> {
    if (ops.length === 1) return await this.enqueue<T>(ops[0], decoded);
    const group = this.#nextGroup++;
    const results = await Promise.allSettled(
      ops.map((op, i) => this.enqueue({ ...op, group }, i === 0 ? decoded : undefined)),
    );
    const failed = results.find((r, i) =>
      r.status === "rejected" &&
      !(ops[i].kind === "delete" && (ops[i] as { ifExists?: boolean }).ifExists &&
        r.reason instanceof KeyNotFoundError)
    );
    if (failed?.status === "rejected") throw failed.reason;
    return (results[0] as PromiseFulfilledResult<T>).value;
  }

  /** Queues a maintenance step to run between group commits; resolves with its result. */
  runJob<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#jobs.push({ run: () => fn().then(resolve, reject) });
      this.#kick();
    });
  }

  /** True while writes wait for a group commit. */
  hasPendingWrites(): boolean {
    return this.#writes.length > 0;
  }

  /** Subscribes to committed changes; see {@link Storage.onCommit}. */
  onCommit(listener: (events: ChangeEvent[]) => void): () => void {
    const wrapped = (events: ChangeEvent[]) => listener(events);
    this.#listeners.add(wrapped);
    return () => this.#listeners.delete(wrapped);
  }

  /** Refuses writes from now on ("storage is closed"); queued ones still commit. */
  refuseWrites(): void {
    this.#refusing = true;
  }

  /** Waits until the queue is empty, then stops waiting for event-loop turns. */
  async drain(): Promise<void> {
    await this.#idle;
    if (this.#turnTimer !== undefined) clearImmediate(this.#turnTimer);
    this.#turnTimer = undefined;
  }

  #kick(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    this.#idle = new Promise((resolve) => this.#markIdle = resolve);
    this.#pump();
  }

  async #pump(): Promise<void> {
    const lock = this.#opts.lock;
    let jobTurn = false;
    try {
      while (this.#writes.length > 0 || this.#jobs.length > 0) {
        await this.#nextTurn();
        if (this.#jobs.length > 0 && (jobTurn || this.#writes.length === 0)) {
          const job = this.#jobs.shift();
          if (job) await (lock ? lock.run(job.run) : job.run());
          jobTurn = false;
        } else {
          const batch = this.#writes.splice(0, this.#opts.maxBatch);
          // An all-or-nothing group never straddles two transactions.
          const group = batch[batch.length - 1].op.group;
          while (group !== undefined && this.#writes[0]?.op.group === group) {
            batch.push(this.#writes.shift()!);
          }
          await (lock ? lock.run(() => this.#commitBatch(batch)) : this.#commitBatch(batch));
          jobTurn = true;
        }
      }
    } finally {
      this.#pumping = false;
      this.#markIdle();
    }
  }

  /** Waits for the end of the current event-loop turn (see the module comment). */
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
    const time = this.#opts.now();
    const worker = this.#opts.worker && this.#opts.now() < this.#workerUntil
      ? this.#opts.worker
      : undefined;
    let res: BatchResult;
    try {
      res = await this.#opts.busy.run(() => this.#transact(ops, time, worker));
    } catch (e) {
      const error = new StorageUnavailableError(`storage write failed: ${errorMessage(e)}`, {
        cause: e,
      });
      for (const w of batch) w.reject(error);
      return;
    }
    this.#observe(res, worker !== undefined);
    this.#deliver(batch, res);
  }

  /** Runs one group-commit transaction where it belongs (see the module comment). */
  async #transact(
    ops: WriteOp[],
    time: number,
    worker: WorkerWriter | undefined,
  ): Promise<BatchResult> {
    if (worker) return await worker.write(ops, time);
    const inline = this.#opts.inline;
    const started = performance.now();
    const r = inline
      ? inline.write(ops, time)
      : await writeBatch(this.#opts.client, ops, time, false);
    r.execMs = performance.now() - started;
    return r;
  }

  /** Counts a group commit, moves the commits to the worker after a slow one, reports it. */
  #observe(res: BatchResult, onWorker: boolean): void {
    const stats = this.#stats;
    if (res.synchronous !== undefined) stats.lastSynchronous = res.synchronous;
    if (onWorker) stats.workerCommits++;
    else stats.inlineCommits++;
    const slow = (res.execMs ?? 0) > this.#opts.slowCommitMs;
    if (slow) {
      stats.slowCommits++;
      if (this.#opts.worker) this.#workerUntil = this.#opts.now() + this.#opts.workerWindowMs;
    }
    const onGroupCommit = this.#opts.onGroupCommit;
    if (onGroupCommit && res.committed > 0) {
      try {
        onGroupCommit({
          where: onWorker ? "worker" : this.#opts.inline ? "inline" : "server",
          writes: res.committed,
          seconds: (res.execMs ?? 0) / 1000,
          slow,
        });
      } catch (e) {
        console.error(`storage onGroupCommit failed: ${errorMessage(e)}`);
      }
    }
  }

  /** Tells the listeners of the committed changes, then settles each write of the batch. */
  #deliver(batch: PendingWrite[], res: BatchResult): void {
    const events: ChangeEvent[] = [];
    const settle: Array<() => void> = [];
    batch.forEach((w, i) => {
      const { op } = w;
      const outcome = res.outcomes[i];
      if ("refused" in outcome) {
        const error = refusal(op, outcome);
        settle.push(() => w.reject(error));
        return;
      }
      const event = changeEvent(op, outcome);
      if (w.decoded !== undefined) event.decoded = w.decoded;
      events.push(event);
      const result: KeyValue | ChangeEvent = op.kind === "delete"
        ? event
        : { key: op.key, value: op.value, revision: outcome.revision };
      settle.push(() => w.resolve(result));
    });
    if (events.length > 0) {
      const stats = this.#stats;
      stats.transactions++;
      stats.committedWrites += events.length;
      stats.largestBatch = Math.max(stats.largestBatch, events.length);
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
}

/** The error of a write the transaction refused. */
function refusal(op: WriteOp, outcome: Extract<WriteOutcome, { refused: string }>): Error {
  const key = outcome.key ?? op.key;
  if (outcome.refused === "exists") {
    return new KeyExistsError(`key ${key} already exists`, key);
  }
  if (outcome.refused === "notFound") {
    return new KeyNotFoundError(`key ${key} not found`, key);
  }
  return new RevisionConflictError(
    `key ${key} is at revision ${outcome.currentRevision}, not ${
      (op as { expected: number }).expected
    }`,
    key,
    outcome.currentRevision ?? 0,
  );
}

/** The change a committed write made. */
function changeEvent(
  op: WriteOp,
  outcome: { revision: number; prevRevision: number; prevValue?: string },
): ChangeEvent {
  const event: ChangeEvent = {
    type: op.kind === "create" ? "ADDED" : op.kind === "update" ? "MODIFIED" : "DELETED",
    key: op.key,
    value: op.kind === "delete" ? outcome.prevValue ?? "" : op.value,
    revision: outcome.revision,
    prevRevision: outcome.prevRevision,
  };
  if (outcome.prevValue !== undefined) event.prevValue = outcome.prevValue;
  return event;
}
