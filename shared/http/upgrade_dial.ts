/**
 * The client side of a connection upgrade, for proxies: connects with TLS, sends one
 * HTTP/1.1 request asking to upgrade, and reads the answer's head. A `101` gives the socket
 * (and any bytes that followed the head) to be spliced with the client's; any other answer is
 * read whole (up to a limit) and returned as a Response to pass on.
 *
 * {@link proxyUpgrade} turns a dialed 101 into the {@link UpgradeResponse} that splices the
 * two sockets.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { connect, type ConnectionOptions } from "node:tls";
import { UpgradeResponse } from "./upgrade_response.ts";

/** One upgrade request to a backend. */
export interface UpgradeDialRequest {
  host: string;
  port: number;
  method: string;
  /** Path and query. */
  path: string;
  /** Header fields to send (Connection and Upgrade included); Host is added. */
  headers: [string, string][];
  /** TLS options (CA, client certificate, server name, verification). */
  tls: ConnectionOptions;
  /** Milliseconds for connecting and the answer's head (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The backend switched protocols. */
export interface Upgraded {
  kind: "upgraded";
  /** The 101's header fields. */
  headers: Headers;
  socket: Socket;
  /** Bytes that followed the 101 head. */
  head: Uint8Array;
}

/** The backend answered without switching. */
export interface NotUpgraded {
  kind: "response";
  response: Response;
}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_BODY_BYTES = 1024 * 1024;
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/**
 * Dials the backend and sends the upgrade request.
 *
 * @throws {Error} when it cannot connect, the TLS handshake fails, or the answer is malformed
 *   or late.
 */
export function dialUpgrade(r: UpgradeDialRequest): Promise<Upgraded | NotUpgraded> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...r.tls, host: r.host, port: r.port, ALPNProtocols: ["http/1.1"] });
    let buf = Buffer.alloc(0);
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new Error("timed out waiting for the upgrade answer")),
      r.timeoutMs ?? 30_000,
    );
    r.signal?.addEventListener("abort", () => fail(new Error("request aborted")), { once: true });
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("connection closed before the answer")));
    socket.once("secureConnect", () => {
      let head = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${r.host}:${r.port}\r\n`;
      for (const [name, value] of r.headers) head += `${name}: ${value}\r\n`;
      socket.write(head + "\r\n");
    });
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) fail(new Error("answer head too large"));
        return;
      }
      const parsed = parseResponseHead(buf.toString("latin1", 0, end));
      if (!parsed) return fail(new Error("malformed answer head"));
      const rest = buf.subarray(end + 4);
      if (parsed.status === 101) {
        settled = true;
        clearTimeout(timer);
        socket.off("data", onData);
        socket.removeAllListeners("close");
        socket.removeAllListeners("error");
        socket.pause();
        resolve({ kind: "upgraded", headers: parsed.headers, socket, head: rest });
        return;
      }
      socket.off("data", onData);
      readBody(socket, parsed.headers, rest).then((body) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        const headers = new Headers();
        for (const [k, v] of parsed.headers) if (!HOP_BY_HOP.has(k)) headers.append(k, v);
        resolve({
          kind: "response",
          response: new Response(body as Uint8Array<ArrayBuffer>, {
            status: parsed.status,
            headers,
          }),
        });
      }, fail);
    };
    socket.on("data", onData);
  });
}

/** Parses a status line and header fields; undefined when malformed. */
function parseResponseHead(text: string): { status: number; headers: Headers } | undefined {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0]);
  if (!m) return undefined;
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      return undefined;
    }
  }
  const status = Number(m[1]);
  return status >= 100 && status <= 599 ? { status, headers } : undefined;
}

/** Reads a non-101 answer's body: its Content-Length, else until close (chunked: refused). */
function readBody(
  socket: Socket,
  headers: Headers,
  first: Uint8Array,
): Promise<Uint8Array> {
  const declared = headers.get("content-length");
  const length = declared !== null ? Number(declared) : undefined;
  if (headers.get("transfer-encoding")) {
    return Promise.resolve(new TextEncoder().encode("(chunked answer body not relayed)"));
  }
  return new Promise((resolve, reject) => {
    let body = Buffer.from(first);
    const done = () => resolve(length !== undefined ? body.subarray(0, length) : body);
    if (length !== undefined && body.length >= length) return done();
    socket.on("data", (chunk: Buffer) => {
      body = Buffer.concat([body, chunk]);
      if (body.length > MAX_BODY_BYTES) reject(new Error("answer body too large"));
      else if (length !== undefined && body.length >= length) done();
    });
    socket.on("end", done);
    socket.on("error", reject);
    socket.resume();
  });
}

/**
 * The answer to the client that splices its upgraded connection with the backend's: the
 * backend's 101 header fields (without Connection), then bytes copied both ways with
 * backpressure until either side closes.
 */
export function proxyUpgrade(backend: Upgraded): Response {
  const headers = new Headers();
  for (const [k, v] of backend.headers) if (k !== "connection") headers.append(k, v);
  return new UpgradeResponse(headers, ({ socket, head }) => {
    const upstream = backend.socket;
    if (head.length) upstream.write(head);
    if (backend.head.length) socket.write(backend.head);
    // Each side's end is passed on after what it sent (pipe ends the other side); a side
    // that closes or fails takes the other down once its pending bytes are flushed.
    socket.pipe(upstream);
    upstream.pipe(socket);
    const destroy = () => {
      socket.destroy();
      upstream.destroy();
    };
    const closeOther = (other: Socket) => () => {
      if (other.destroyed) return;
      other.end();
      const timer = setTimeout(() => other.destroy(), 5000);
      other.once("close", () => clearTimeout(timer));
    };
    socket.on("close", closeOther(upstream));
    upstream.on("close", closeOther(socket));
    socket.on("error", destroy);
    upstream.on("error", destroy);
    upstream.resume();
  });
}
