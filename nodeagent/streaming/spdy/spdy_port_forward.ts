/**
 * Port forwarding over SPDY (`portforward.k8s.io`), directly or carried by a WebSocket
 * (kubectl 1.31+'s `SPDY/3.1+portforward.k8s.io`): for each forwarded connection the client
 * opens an `error` and a `data` stream with the same `requestid` and a `port`; the agent
 * connects to that port on 127.0.0.1 (process-runtime pods share the host's network) and
 * copies bytes both ways. A connection that fails is reported on the error stream in the
 * kubelet's words.
 *
 * @module
 */
import type { SpdyStream } from "./spdy_session.ts";

/** The pod whose ports are forwarded. */
export interface ForwardTarget {
  namespace: string;
  name: string;
  /** Opens a connection to a port of the pod. */
  dial(port: number): Promise<Deno.Conn>;
}

/** The connection of a process-runtime pod: 127.0.0.1 on the node. */
export function dialLocalhost(port: number): Promise<Deno.Conn> {
  return Deno.connect({ hostname: "127.0.0.1", port });
}

/** Pairs streams by request and forwards each pair; returns the session's stream handler. */
export function portForwardStreams(target: ForwardTarget): (stream: SpdyStream) => void {
  const pairs = new Map<string, { data?: SpdyStream; error?: SpdyStream }>();
  return (stream) => {
    const type = stream.header("streamtype");
    const id = stream.header("requestid") ?? stream.header("port") ?? "";
    if (type !== "data" && type !== "error") {
      stream.end();
      return;
    }
    const pair = pairs.get(id) ?? {};
    pair[type] = stream;
    pairs.set(id, pair);
    if (pair.data && pair.error) {
      pairs.delete(id);
      forward(target, pair.data, pair.error).catch(() => {});
    }
  };
}

async function forward(target: ForwardTarget, data: SpdyStream, error: SpdyStream): Promise<void> {
  const port = Number(data.header("port"));
  const fail = async (message: string) => {
    await error.write(new TextEncoder().encode(message));
    await error.end();
    await data.end();
  };
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return fail(`invalid port ${JSON.stringify(data.header("port") ?? "")}`);
  }
  let conn: Deno.Conn;
  try {
    conn = await target.dial(port);
  } catch (err) {
    return fail(
      `error forwarding port ${port} to pod ${target.namespace}/${target.name}: ${
        (err as Error).message
      }`,
    );
  }
  // Written in order with the connection's own write().
  let written = Promise.resolve();
  const send = async (d: Uint8Array) => {
    for (let off = 0; off < d.length;) off += await conn.write(d.subarray(off));
  };
  data.read(
    (d) => written = written.then(() => send(d)).catch(() => {}),
    () => written = written.then(() => conn.closeWrite()).catch(() => {}),
  );
  try {
    for await (const chunk of conn.readable) await data.write(chunk);
  } catch {
    // the connection broke: end the streams
  }
  await data.end();
  await error.end();
  try {
    conn.close();
  } catch {
    // already closed
  }
}
