/**
 * User-space UDP forwarding for one listening address: each client (address and port) gets a
 * session with its own socket towards the endpoint chosen for it, so replies find their way
 * back; sessions end after {@link UDP_IDLE_MS} without traffic, or when their endpoint goes.
 *
 * @module
 */
import dgram from "node:dgram";
import type { Endpoint } from "./proxy_table.ts";

/** How long a UDP session lives without traffic. */
export const UDP_IDLE_MS = 30_000;

interface Session {
  ep: Endpoint;
  upstream: dgram.Socket;
  last: number;
}

/** One UDP listening socket and its sessions. */
export class UdpForwarder {
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: ReturnType<typeof setInterval>;

  private constructor(
    readonly socket: dgram.Socket,
    readonly pick: (clientIP: string) => Endpoint | undefined,
  ) {
    socket.on("message", (msg, from) => this.#onMessage(msg, from));
    this.#sweep = setInterval(() => this.#expire(), 5_000);
  }

  /** Binds `host:port`; rejects when the address cannot be bound. */
  static open(
    host: string,
    port: number,
    pick: (clientIP: string) => Endpoint | undefined,
  ): Promise<UdpForwarder> {
    const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
    return new Promise((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, host, () => {
        socket.off("error", reject);
        socket.on("error", () => {});
        resolve(new UdpForwarder(socket, pick));
      });
    });
  }

  /** Ends the sessions whose endpoint `keep` refuses. */
  endStale(keep: (ep: Endpoint) => boolean): void {
    for (const [k, s] of this.#sessions) if (!keep(s.ep)) this.#end(k, s);
  }

  /** Closes the socket and every session. */
  close(): void {
    clearInterval(this.#sweep);
    for (const [k, s] of this.#sessions) this.#end(k, s);
    try {
      this.socket.close();
    } catch { /* closed */ }
  }

  #onMessage(msg: Uint8Array, from: dgram.RemoteInfo): void {
    const k = `${from.address}|${from.port}`;
    let s = this.#sessions.get(k);
    if (!s) {
      const ep = this.pick(from.address);
      if (!ep) return;
      const upstream = dgram.createSocket(ep.ip.includes(":") ? "udp6" : "udp4");
      upstream.on("error", () => {});
      upstream.on("message", (reply) => {
        const cur = this.#sessions.get(k);
        if (cur) cur.last = Date.now();
        this.socket.send(reply, from.port, from.address);
      });
      s = { ep, upstream, last: Date.now() };
      this.#sessions.set(k, s);
    }
    s.last = Date.now();
    s.upstream.send(msg, s.ep.port, s.ep.ip);
  }

  #expire(): void {
    const now = Date.now();
    for (const [k, s] of this.#sessions) if (now - s.last > UDP_IDLE_MS) this.#end(k, s);
  }

  #end(k: string, s: Session): void {
    this.#sessions.delete(k);
    try {
      s.upstream.close();
    } catch { /* closed */ }
  }
}
