/**
 * A minimal unary gRPC client over HTTP/2 on a unix socket (`node:http2`): length-prefixed
 * messages (uncompressed), `grpc-timeout`, and the `grpc-status`/`grpc-message` trailers (or
 * headers, for trailers-only answers). Aborting a call resets its stream.
 *
 * @module
 */
import http2 from "node:http2";
import net from "node:net";

/** A gRPC call that ended with a non-OK status. */
export class GrpcError extends Error {
  /** The gRPC status code (2 UNKNOWN, 4 DEADLINE_EXCEEDED, 12 UNIMPLEMENTED, 14 UNAVAILABLE…). */
  readonly code: number;

  /** Wraps a status code and its message. */
  constructor(code: number, message: string) {
    super(`rpc error: code = ${GRPC_CODE_NAMES[code] ?? code} desc = ${message}`);
    this.name = "GrpcError";
    this.code = code;
  }
}

/** gRPC status code names. */
export const GRPC_CODE_NAMES: Record<number, string> = {
  0: "OK",
  1: "Canceled",
  2: "Unknown",
  3: "InvalidArgument",
  4: "DeadlineExceeded",
  5: "NotFound",
  12: "Unimplemented",
  13: "Internal",
  14: "Unavailable",
};

/** Frames one message: compressed flag 0, 4-byte big-endian length, the bytes. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, 5);
  return out;
}

/**
 * Splits a buffer into complete messages; returns them and the unconsumed rest.
 *
 * @throws {GrpcError} on a compressed message (never requested).
 */
export function grpcUnframe(buf: Uint8Array): { messages: Uint8Array[]; rest: Uint8Array } {
  const messages: Uint8Array[] = [];
  let off = 0;
  while (buf.length - off >= 5) {
    const len = new DataView(buf.buffer, buf.byteOffset + off).getUint32(1);
    if (buf[off] !== 0) throw new GrpcError(13, "compressed gRPC message not supported");
    if (buf.length - off - 5 < len) break;
    messages.push(buf.slice(off + 5, off + 5 + len));
    off += 5 + len;
  }
  return { messages, rest: buf.slice(off) };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Options of one call. */
export interface CallOptions {
  /** Deadline in milliseconds (sent as `grpc-timeout`). */
  timeoutMs: number;
  /** Aborts the call. */
  signal?: AbortSignal;
}

/**
 * A connection to one gRPC server on a unix socket (or, given `tcp`, a plaintext TCP address),
 * reconnecting when it drops.
 */
export class GrpcClient {
  readonly #socketPath: string;
  readonly #tcp?: { host: string; port: number };
  #session?: http2.ClientHttp2Session;

  /** Connects lazily to `socketPath`, or to `tcp` when given. */
  constructor(socketPath: string, tcp?: { host: string; port: number }) {
    this.#socketPath = socketPath;
    this.#tcp = tcp;
  }

  #connect(): http2.ClientHttp2Session {
    if (this.#session && !this.#session.closed && !this.#session.destroyed) return this.#session;
    const tcp = this.#tcp;
    const session = http2.connect("http://localhost", {
      createConnection: () =>
        tcp ? net.connect({ host: tcp.host, port: tcp.port }) : net.connect(this.#socketPath),
    });
    session.on("error", () => {/* reported on the streams */});
    session.on("close", () => {
      if (this.#session === session) this.#session = undefined;
    });
    this.#session = session;
    return session;
  }

  /**
   * Sends one request message to `path` (`/pkg.Service/Method`) and returns the one answer.
   *
   * @throws {GrpcError} for a non-OK status, an unreachable socket (14) or the deadline (4).
   */
  call(path: string, request: Uint8Array, opts: CallOptions): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      if (opts.signal?.aborted) {
        return reject(new GrpcError(1, String(opts.signal.reason ?? "canceled")));
      }
      let session: http2.ClientHttp2Session;
      try {
        session = this.#connect();
      } catch (err) {
        return reject(new GrpcError(14, String(err)));
      }
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-timeout": `${Math.max(1, Math.ceil(opts.timeoutMs))}m`,
      });
      let buf: Uint8Array = new Uint8Array(0);
      let status: number | undefined;
      let message = "";
      let settled = false;
      const finish = (err?: Error, value?: Uint8Array) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        if (err) reject(err);
        else resolve(value!);
      };
      const onAbort = () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        finish(new GrpcError(1, String(opts.signal?.reason ?? "canceled")));
      };
      const timer = setTimeout(() => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        finish(new GrpcError(4, "context deadline exceeded"));
      }, opts.timeoutMs);
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      const readStatus = (h: http2.IncomingHttpHeaders) => {
        if (h["grpc-status"] !== undefined) {
          status = Number(h["grpc-status"]);
          const m = h["grpc-message"];
          message = typeof m === "string" ? safeDecode(m) : "";
        }
      };
      stream.on("response", (h) => {
        const code = Number(h[":status"]);
        if (code !== 200) {
          finish(new GrpcError(code === 404 ? 12 : 14, `unexpected HTTP status ${code}`));
          stream.close(http2.constants.NGHTTP2_CANCEL);
          return;
        }
        readStatus(h);
      });
      stream.on("trailers", readStatus);
      stream.on("data", (chunk: Uint8Array) => buf = concat(buf, new Uint8Array(chunk)));
      stream.on("error", (err: Error) => finish(new GrpcError(14, err.message)));
      stream.on("close", () => {
        if (settled) return;
        if (status === undefined) {
          return finish(new GrpcError(14, "the stream closed without a gRPC status"));
        }
        if (status !== 0) return finish(new GrpcError(status, message));
        try {
          const { messages } = grpcUnframe(buf);
          if (messages.length !== 1) {
            return finish(
              new GrpcError(13, `expected one response message, got ${messages.length}`),
            );
          }
          finish(undefined, messages[0]);
        } catch (err) {
          finish(err as Error);
        }
      });
      stream.end(grpcFrame(request));
    });
  }

  /** Closes the connection. */
  close(): Promise<void> {
    const s = this.#session;
    this.#session = undefined;
    if (!s || s.closed || s.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      // A server that never lets the session close must not hold us.
      const timer = setTimeout(() => {
        s.destroy();
        resolve();
      }, 1000);
      s.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
