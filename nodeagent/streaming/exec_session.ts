/**
 * Runs a command in a container's context (its working directory and environment) for
 * `exec`, wired to the session's transport ({@link ExecIO}: WebSocket channels or SPDY
 * streams): its input, output, terminal sizes, and the outcome (a Status with the exit code,
 * as the kubelet sends it).
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { StreamTarget } from "../runtime/stream_target.ts";
import type { ExecIO } from "./exec_io.ts";
import { PTY_HELPER, ptyFrame } from "./pty_helper.ts";

/** What to run and which streams to connect. */
export interface ExecRequest {
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

function truthy(v: string | null): boolean {
  return v === "1" || v === "true";
}

/**
 * The exec request of a query (the kubelet's `command`, `input`, `output`, `error`, `tty`).
 *
 * @throws {StatusError} 400 without a command or without any stream.
 */
export function parseExecRequest(q: URLSearchParams): ExecRequest {
  const r: ExecRequest = {
    command: q.getAll("command"),
    stdin: truthy(q.get("input")),
    stdout: truthy(q.get("output")),
    stderr: truthy(q.get("error")),
    tty: truthy(q.get("tty")),
  };
  if (r.command.length === 0) throw StatusError.badRequest("you must specify a command");
  if (!r.stdin && !r.stdout && !r.stderr) {
    throw StatusError.badRequest("you must specify at least 1 of stdin, stdout, stderr");
  }
  if (r.tty) r.stderr = false;
  return r;
}

/** The Status the error channel carries for an exit code (v4 and later). */
export function exitStatus(command: string[], code: number): Record<string, unknown> {
  if (code === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: command '${
      command.join(" ")
    }' exited with ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  };
}

/** The system's Python 3 (Debian's), not one a user's PATH may put first. */
function python(): string {
  try {
    return Deno.statSync("/usr/bin/python3").isFile ? "/usr/bin/python3" : "python3";
  } catch {
    return "python3";
  }
}

/** Spawns the command (through the terminal helper with `tty`). */
function spawn(target: StreamTarget, req: ExecRequest): Deno.ChildProcess {
  const argv = req.tty ? [python(), "-c", PTY_HELPER, ...req.command] : req.command;
  return new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: target.workDir,
    env: req.tty ? { TERM: "xterm", ...target.env } : target.env,
    clearEnv: true,
    stdin: req.stdin || req.tty ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs the exec session until the command ends or the client leaves. */
export async function runExec(io: ExecIO, target: StreamTarget, req: ExecRequest): Promise<void> {
  let child: Deno.ChildProcess;
  try {
    child = spawn(target, req);
  } catch (err) {
    const message = `failed to exec in container: ${(err as Error).message}`;
    io.start({ stdin() {}, stdinEnd() {}, resize() {}, gone() {} });
    await io.finish({ metadata: {}, status: "Failure", message, reason: "InternalError" });
    return;
  }
  // A stream that is not piped throws when asked for.
  const stdin = req.stdin || req.tty ? child.stdin.getWriter() : undefined;
  let stdinOpen = req.stdin;
  const write = (bytes: Uint8Array) => stdin?.write(bytes).catch(() => {});
  let clientGone = false;
  io.start({
    stdin(data) {
      if (stdinOpen) write(req.tty ? ptyFrame(0, data) : data);
    },
    stdinEnd() {
      if (!stdinOpen) return;
      stdinOpen = false;
      if (req.tty) write(ptyFrame(2, new Uint8Array(0)));
      else stdin?.close().catch(() => {});
    },
    resize(width, height) {
      if (req.tty) write(ptyFrame(1, new TextEncoder().encode(`${width} ${height}`)));
    },
    gone() {
      clientGone = true;
      try {
        child.kill("SIGKILL");
      } catch {
        // already exited
      }
    },
  });
  const pump = async (s: ReadableStream<Uint8Array>, send?: (d: Uint8Array) => Promise<void>) => {
    for await (const chunk of s) if (send && !clientGone) await send(chunk);
  };
  const [status] = await Promise.all([
    child.status,
    pump(child.stdout, req.stdout || req.tty ? io.stdout : undefined),
    pump(child.stderr, req.stderr ? io.stderr : undefined),
  ]);
  await stdin?.close().catch(() => {});
  if (clientGone) return;
  // A command ended by a signal has the code 128 + its number, as a shell reports it.
  await io.finish(exitStatus(req.command, status.code));
}
