/**
 * exec and attach over SPDY (the remotecommand protocols `v4.channel.k8s.io` down to
 * `channel.k8s.io`): the client opens one stream per role, named by its `streamtype` header
 * (`error`, `stdin`, `stdout`, `stderr`, `resize`); once those the request asks for are all
 * open the session runs. The outcome goes on the error stream (a Status from v4 on, else its
 * message when it failed), then every stream ends and the session closes.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { type ExecIO, parseTerminalSize } from "../exec_io.ts";
import type { SpdySession, SpdyStream } from "./spdy_session.ts";
import { negotiateStreamProtocol, spdyResponse } from "./spdy_upgrade.ts";

/** The remotecommand protocols over SPDY, most preferred first. */
export const SPDY_EXEC_PROTOCOLS = [
  "v4.channel.k8s.io",
  "v3.channel.k8s.io",
  "v2.channel.k8s.io",
  "channel.k8s.io",
] as const;

/** The streams a request asks for. */
export interface ExpectedStreams {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** How long the client has to open its streams (the kubelet's stream creation timeout). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

/**
 * Accepts a SPDY exec or attach request; `run` drives the session once its streams are open.
 *
 * @throws {StatusError} 400 when no protocol can be agreed.
 */
export function acceptSpdyExec(
  req: Request,
  expected: ExpectedStreams,
  run: (io: ExecIO) => Promise<void>,
): Response {
  const protocol = negotiateStreamProtocol(req, SPDY_EXEC_PROTOCOLS, "channel.k8s.io");
  const wanted = new Set(["error"]);
  if (expected.stdin) wanted.add("stdin");
  if (expected.stdout) wanted.add("stdout");
  if (expected.stderr && !expected.tty) wanted.add("stderr");
  if (expected.tty && (protocol === "v4.channel.k8s.io" || protocol === "v3.channel.k8s.io")) {
    wanted.add("resize");
  }
  const streams = new Map<string, SpdyStream>();
  let session: SpdySession | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  const maybeStart = () => {
    if (started || !session || ![...wanted].every((w) => streams.has(w))) return;
    started = true;
    clearTimeout(timer);
    const s = session;
    run(spdyExecIO(s, streams, protocol)).catch(() => s.close());
  };
  return spdyResponse(protocol, (s) => {
    session = s;
    timer = setTimeout(() => s.close(), STREAM_CREATION_TIMEOUT_MS);
    s.onClose(() => clearTimeout(timer));
    maybeStart();
  }, (stream) => {
    const type = stream.header("streamtype") ?? "";
    if (!streams.has(type)) streams.set(type, stream);
    maybeStart();
  });
}

/** The session transport of SPDY streams. */
function spdyExecIO(
  session: SpdySession,
  streams: Map<string, SpdyStream>,
  protocol: string,
): ExecIO {
  const send = (name: string) => (data: Uint8Array) =>
    streams.get(name)?.write(data) ?? Promise.resolve();
  return {
    start(input) {
      streams.get("stdin")?.read((d) => input.stdin(d), () => input.stdinEnd());
      let sizes = "";
      streams.get("resize")?.read((d) => {
        sizes += Buffer.from(d).toString();
        let end: number;
        while ((end = sizes.indexOf("}")) >= 0) {
          const size = parseTerminalSize(sizes.slice(0, end + 1));
          sizes = sizes.slice(end + 1);
          if (size) input.resize(size.width, size.height);
        }
      }, () => {});
      session.onClose(() => input.gone());
    },
    stdout: send("stdout"),
    stderr: send("stderr"),
    async finish(status) {
      const error = streams.get("error");
      if (protocol === "v4.channel.k8s.io") {
        await error?.write(new TextEncoder().encode(JSON.stringify(status)));
      } else if (status.status !== "Success") {
        await error?.write(new TextEncoder().encode(String(status.message ?? "")));
      }
      for (const s of streams.values()) await s.end();
      await session.close();
    },
  };
}
