/**
 * Entry point of the write worker (started by {@link WorkerWriter}): owns one connection to
 * the embedded file through the synchronous `libsql` driver and runs group-commit transactions
 * on it with {@link SyncBatchWriter} (statements prepared once), so a commit's fsync blocks
 * this thread instead of the server's.
 *
 * Messages in: `{ id, type: "open", url, timeoutMs }`, `{ id, type: "write", ops, timeMs }`,
 * `{ id, type: "close" }`. Each is answered with `{ id, result }` or
 * `{ id, error: { message, code } }`.
 *
 * @module
 */
import { SyncBatchWriter } from "./sync_batch_writer.ts";
import type { WorkerRequest, WorkerResponse } from "./worker_writer.ts";

interface WorkerScope {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerResponse): void;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
let writer: SyncBatchWriter | undefined;

// The driver is synchronous: requests run one at a time, in arrival order.
scope.onmessage = (e) => handle(e.data);

function handle(req: WorkerRequest): void {
  try {
    switch (req.type) {
      case "open":
        writer?.close();
        writer = SyncBatchWriter.open(req.url, req.timeoutMs);
        scope.postMessage({ id: req.id, result: undefined });
        return;
      case "write": {
        if (!writer) throw new Error("write worker is not open");
        const started = performance.now();
        const result = writer.write(req.ops, req.timeMs);
        result.execMs = performance.now() - started;
        scope.postMessage({ id: req.id, result });
        return;
      }
      case "close":
        writer?.close();
        writer = undefined;
        scope.postMessage({ id: req.id, result: undefined });
        scope.close();
        return;
    }
  } catch (e) {
    const code = (e as { code?: unknown })?.code;
    scope.postMessage({
      id: req.id,
      error: {
        message: e instanceof Error ? e.message : String(e),
        code: typeof code === "string" ? code : undefined,
      },
    });
  }
}
