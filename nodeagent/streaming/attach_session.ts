/**
 * `attach` for the process runtime: the container's output from now on, read as it is
 * appended to its log (stdout on channel 1, stderr on channel 2, both on 1 with a terminal),
 * until the container exits or the client leaves; then a Success Status on the error channel.
 * Input goes to the main process' standard input, which containers with `stdin: true` have
 * (closed after the first session with `stdinOnce`).
 *
 * @module
 */
import type { StreamTarget } from "../runtime/stream_target.ts";
import type { ExecIO } from "./exec_io.ts";
import { type LogRecord, readLog } from "./container_logs.ts";

/** Which streams the client asked for. */
export interface AttachRequest {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Runs an attach session until the container exits or the client leaves. */
export async function runAttach(
  io: ExecIO,
  target: StreamTarget,
  req: AttachRequest,
): Promise<void> {
  const gone = new AbortController();
  const input = req.stdin ? target.stdin : undefined;
  io.start({
    stdin: (data) => void input?.write(data),
    stdinEnd: () => input?.sessionEnded(),
    resize() {},
    gone: () => gone.abort(),
  });
  if (target.running) {
    const send = async (records: LogRecord[]) => {
      for (const r of records) {
        const toStderr = r.stream === "stderr" && !req.tty;
        if (toStderr ? req.stderr : req.stdout) {
          await (toStderr ? io.stderr(r.content) : io.stdout(r.content));
        }
      }
    };
    const opts = { tailLines: 0 };
    await readLog(target.logPath, target.exited, gone.signal, opts, send, () => true);
  }
  input?.sessionEnded();
  if (gone.signal.aborted) return;
  await io.finish({ metadata: {}, status: "Success" });
}
