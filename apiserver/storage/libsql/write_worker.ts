/**
 * Entry point of the write worker (started by {@link WorkerWriter}): owns one embedded
 * `@libsql/client` connection and runs group-commit transactions on it with
 * {@link writeBatch}, so a commit's fsync blocks this thread instead of the server's.
 *
 * Messages in: `{ id, type: "open", url, timeoutMs }`, `{ id, type: "write", ops, timeMs }`,
 * `{ id, type: "close" }`. Each is answered with `{ id, result }` or
 * `{ id, error: { message, code } }`.
 *
 * @module
 */
import { type Client, createClient } from "@libsql/client";
import { writeBatch } from "./write_batch.ts";
import type { WorkerRequest, WorkerResponse } from "./worker_writer.ts";

interface WorkerScope {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerResponse): void;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
let client: Client | undefined;
// Requests run one at a time, in arrival order.
let queue: Promise<void> = Promise.resolve();

scope.onmessage = (e) => {
  const req = e.data;
  queue = queue.then(() => handle(req));
};

async function handle(req: WorkerRequest): Promise<void> {
  try {
    switch (req.type) {
      case "open":
        client = createClient({ url: req.url, timeout: req.timeoutMs });
        scope.postMessage({ id: req.id, result: undefined });
        return;
      case "write": {
        if (!client) throw new Error("write worker is not open");
        const started = performance.now();
        const result = await writeBatch(client, req.ops, req.timeMs, true);
        result.execMs = performance.now() - started;
        scope.postMessage({ id: req.id, result });
        return;
      }
      case "close":
        client?.close();
        client = undefined;
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
