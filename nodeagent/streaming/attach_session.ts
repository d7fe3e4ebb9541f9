/**
 * `attach` for the process runtime: the container's output from now on, read as it is
 * appended to its log (stdout on channel 1, stderr on channel 2, both on 1 with a terminal),
 * until the container exits or the client leaves; then a Success Status on the error channel.
 * The process runtime starts containers without standard input, so input is not connected.
 *
 * @module
 */
import type { StreamTarget } from "../runtime/stream_target.ts";
import { CHANNEL, type ChannelConn, statusOnErrorChannel } from "./channel_protocol.ts";
import { type LogRecord, readLog } from "./container_logs.ts";

/** Which streams the client asked for. */
export interface AttachRequest {
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Runs an attach session until the container exits or the client leaves. */
export async function runAttach(
  conn: ChannelConn,
  target: StreamTarget,
  req: AttachRequest,
): Promise<void> {
  const gone = new AbortController();
  conn.ws.start({ message() {}, closed: () => gone.abort() });
  if (target.running) {
    const send = async (records: LogRecord[]) => {
      for (const r of records) {
        const channel = r.stream === "stderr" && !req.tty ? CHANNEL.stderr : CHANNEL.stdout;
        if (channel === CHANNEL.stdout ? req.stdout : req.stderr) {
          await conn.send(channel, r.content);
        }
      }
    };
    const opts = { tailLines: 0 };
    await readLog(target.logPath, target.exited, gone.signal, opts, send, () => true);
  }
  if (gone.signal.aborted) return;
  if (statusOnErrorChannel(conn.protocol)) {
    await conn.send(CHANNEL.error, JSON.stringify({ metadata: {}, status: "Success" }));
  }
  conn.ws.close();
}
