/**
 * The WebSocket port-forward protocol of older clients (the Python client): the ports are
 * named in the query (`port`, repeated or comma-separated); port `i` gets channel `2i` for data
 * and `2i+1` for errors, each opened by the server with the port number (two bytes, little
 * endian). The agent connects to each port on 127.0.0.1 and copies bytes; the WebSocket
 * closes once every connection has ended.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { WebSocketConn } from "../../shared/http/websocket_conn.ts";
import { ChannelConn, type ChannelProtocol, decodeChannelMessage } from "./channel_protocol.ts";

/**
 * The ports of a request.
 *
 * @throws {StatusError} 400 when there is none or one is not a port number.
 */
export function forwardedPorts(q: URLSearchParams): number[] {
  const values = [...q.getAll("port"), ...q.getAll("ports")].flatMap((v) => v.split(","));
  const ports = values.map((v) => v.trim()).filter(Boolean).map((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) {
      throw StatusError.badRequest(`unable to parse "${v}" as a port: invalid port`);
    }
    return n;
  });
  if (ports.length === 0) throw StatusError.badRequest('query parameter "port" is required');
  return ports;
}

/** Runs the forwarding session over `ws` for `ports`, dialing with `dial`. */
export async function runWebSocketPortForward(
  ws: WebSocketConn,
  protocol: ChannelProtocol,
  ports: number[],
  dial: (port: number) => Promise<Deno.Conn>,
): Promise<void> {
  const conn = new ChannelConn(ws, protocol);
  // Dialed at once; what the client sends before a connection is up waits for it.
  const dialed = ports.map((port) => dial(port).catch((err: Error) => err));
  const pending: Promise<unknown>[] = [...dialed];
  const conns: Deno.Conn[] = [];
  ws.start({
    message(data, binary) {
      const m = decodeChannelMessage(protocol, data, binary);
      if (!m || m.channel % 2 !== 0 || !m.data.length || m.channel / 2 >= ports.length) return;
      const i = m.channel / 2;
      const bytes = m.data.slice();
      pending[i] = pending[i].then(async () => {
        const c = await dialed[i];
        if (c instanceof Error) return;
        for (let off = 0; off < bytes.length;) off += await c.write(bytes.subarray(off));
      }).catch(() => {});
    },
    closed() {
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
    },
  });
  await Promise.all(ports.map(async (port, i) => {
    const portBytes = Uint8Array.from([port & 0xff, port >> 8]);
    await conn.send(2 * i, portBytes);
    await conn.send(2 * i + 1, portBytes);
    const c = await dialed[i];
    if (c instanceof Error) {
      await conn.send(2 * i + 1, `error forwarding port ${port}: ${c.message}`);
      return;
    }
    conns.push(c);
    try {
      for await (const chunk of c.readable) await conn.send(2 * i, chunk);
    } catch {
      // the connection broke
    }
  }));
  ws.close();
}
