/**
 * The server-side handle of the write worker (`write_worker.ts`): group-commit transactions on
 * an embedded database file run on a Worker thread, so a commit's fsync blocks that thread
 * instead of request handling. The committer sends commits here only for a while after a slow
 * one (`committer.ts` says why). One message each way per batch, not per statement.
 *
 * @module
 */
import type { BatchResult, WriteOp } from "./write_batch.ts";

/** A request to the write worker. */
export type WorkerRequest =
  | { id: number; type: "open"; url: string; timeoutMs: number }
  | { id: number; type: "write"; ops: WriteOp[]; timeMs: number }
  | { id: number; type: "close" };

/** The write worker's answer to the request with the same id. */
export type WorkerResponse =
  | { id: number; result: BatchResult | undefined }
  | { id: number; error: { message: string; code?: string } };

/** An error reported by the write worker; `code` is the driver's (e.g. SQLITE_BUSY). */
export class WriteWorkerError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = "WriteWorkerError";
  }
}

interface Waiter {
  resolve: (result: BatchResult | undefined) => void;
  reject: (error: Error) => void;
}

/** Runs group commits (`SyncBatchWriter.write`) on a Worker with its own connection. */
export class WorkerWriter {
  readonly #worker: Worker;
  readonly #waiters = new Map<number, Waiter>();
  #nextId = 0;
  #failed: Error | undefined;
  #closed = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.onmessage = (e: MessageEvent<WorkerResponse>) => {
      const msg = e.data;
      const waiter = this.#waiters.get(msg.id);
      if (!waiter) return;
      this.#waiters.delete(msg.id);
      if ("error" in msg) waiter.reject(new WriteWorkerError(msg.error.message, msg.error.code));
      else waiter.resolve(msg.result);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.#fail(new Error(`write worker failed: ${e.message}`));
    };
    worker.onmessageerror = () => this.#fail(new Error("write worker sent an unreadable message"));
  }

  /** Starts a worker with a connection to the embedded database at `url` (`file:…`). */
  static async start(url: string, busyTimeoutMs: number): Promise<WorkerWriter> {
    const worker = new Worker(new URL("./write_worker.ts", import.meta.url), { type: "module" });
    const writer = new WorkerWriter(worker);
    try {
      await writer.#call({ id: 0, type: "open", url, timeoutMs: busyTimeoutMs });
    } catch (e) {
      worker.terminate();
      throw e;
    }
    return writer;
  }

  /** Commits `ops` in one transaction on the worker; see {@link writeBatch}. */
  async write(ops: WriteOp[], timeMs: number): Promise<BatchResult> {
    const result = await this.#call({ id: 0, type: "write", ops, timeMs });
    if (!result) throw new Error("write worker answered without a result");
    return result;
  }

  /** Closes the worker's connection and stops the worker. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (!this.#failed) await this.#call({ id: 0, type: "close" }, true);
    } catch {
      // terminating below either way
    } finally {
      this.#worker.terminate();
      this.#fail(new Error("write worker is closed"));
    }
  }

  #call(req: WorkerRequest, closing = false): Promise<BatchResult | undefined> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#closed && !closing) return Promise.reject(new Error("write worker is closed"));
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#waiters.set(id, { resolve, reject });
      this.#worker.postMessage({ ...req, id });
    });
  }

  #fail(error: Error): void {
    this.#failed ??= error;
    const waiters = [...this.#waiters.values()];
    this.#waiters.clear();
    for (const w of waiters) w.reject(error);
  }
}
