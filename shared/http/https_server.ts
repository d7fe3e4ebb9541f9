/**
 * The HTTPS listener. Built on `node:tls` because `Deno.serve` cannot ask for client
 * certificates: with `requestCert: true, rejectUnauthorized: false` the TLS layer accepts any
 * client certificate and hands it to us unverified (verification is apiserver/pki's job).
 * HTTP/1.1 is spoken by {@link Http1Connection} rather than `node:https`, which costs much
 * more CPU per request under Deno; HTTP/2, offered in ALPN as kube-apiserver does, by
 * {@link Http2Connection}. The handler is fetch-style: it gets a `Request` (method, full URL,
 * headers, streaming body) and a {@link ConnInfo} (the client's address and certificates, a
 * signal that tells when it goes away, the body if it was read ahead), and returns a
 * `Response` whose body is streamed chunk by chunk with backpressure.
 *
 * @module
 */
import type { Socket } from "node:net";
import { createServer, type Server, type TLSSocket } from "node:tls";
import type { Exchange } from "./exchange.ts";
import { Http1Connection } from "./http1_connection.ts";
import { Http2Connection } from "./http2_connection.ts";
import { AcceptWatchdog } from "./accept_watchdog.ts";
import { ConnectionGuard } from "./connection_guard.ts";
import { readDescriptorLimit } from "./descriptor_limit.ts";
import { handleExchange, Peer, type ServeContext } from "./serve_exchange.ts";
import { startSweep } from "./start_sweep.ts";
import type { HttpsHandler } from "./conn_info.ts";

export { fixedBody, FixedResponse, fixedResponse } from "./fixed_response.ts";
export type { ConnInfo, HttpsHandler } from "./conn_info.ts";
export { BUFFERED_REQUEST_BODY_BYTES } from "./serve_exchange.ts";

/** Options of serveHttps(). */
export interface ServeHttpsOptions {
  hostname: string;
  /** The port; 0 picks a free one. */
  port: number;
  /** The serving certificate chain (PEM). */
  certPem: string;
  /** Its private key (PEM). */
  keyPem: string;
  /** Ask clients for a certificate (it is optional for them and never verified here). */
  requestClientCert: boolean;
  /**
   * CA certificates (PEM each) the CertificateRequest names as acceptable issuers, as Go's
   * ClientCAs do; this verifies nothing (certificates are still handed over unverified).
   */
  clientCaPems?: string[];
  /** Aborting it closes the server. */
  signal?: AbortSignal;
  /** Largest accepted request body (default 3 MiB, as kube-apiserver). */
  maxRequestBodyBytes?: number;
  /** Called with errors the handler threw (default: one JSON line on stderr). */
  onError?: (err: unknown, req: Request) => void;
  /** A keep-alive connection idle this long is closed (default 90 s, as kube-apiserver). */
  idleTimeoutMs?: number;
  /** A request head still incomplete after this long closes its connection (default 32 s). */
  readHeaderTimeoutMs?: number;
  /** Clock for the timeouts, in ms (default Date.now). */
  now?: () => number;
  /** Offer HTTP/2 in ALPN (default true); without it every client speaks HTTP/1.1. */
  http2?: boolean;
  /** Most streams an HTTP/2 client may open at once on one connection (default 1000). */
  http2MaxStreamsPerConnection?: number;
  /** A connection that has not completed its TLS handshake after this long is closed (10 s). */
  handshakeTimeoutMs?: number;
  /**
   * Most open connections; a new one beyond it is closed at once. Default: the process's soft
   * limit on open files less an eighth (at least 64) for everything else.
   */
  maxConnections?: number;
  /**
   * Most connections in their TLS handshake at once; beyond it the oldest is closed, so that
   * clients that never complete one leave room for those that do (default half of
   * `maxConnections`).
   */
  maxHandshakingConnections?: number;
  /** Called with conditions worth a warning (default: one JSON line on stderr). */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
}

/** A running server. */
export interface HttpsServer {
  port: number;
  hostname: string;
  /** Stops accepting connections; those open keep being served until {@link close}. */
  stopListening(): void;
  /**
   * Stops listening and ends every open connection, long-running streams included. With
   * `graceMs`, the exchanges in progress first get that long to finish, and connections are
   * then ended after their pending writes (a clean end) before the rest are cut.
   */
  close(opts?: { graceMs?: number }): Promise<void>;
  /** Resolves once the server is closed. */
  finished: Promise<void>;
  /**
   * Serves a new certificate to new connections; open connections keep theirs (rotation
   * without dropping anything).
   */
  setCertificate?(certPem: string, keyPem: string): void;
}

/** kube-apiserver's limit on request bodies. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** kube-apiserver's limit on a request head (MaxHeaderBytes). */
export const MAX_HEAD_BYTES = 1024 * 1024;

/** Streams per HTTP/2 connection, as kube-apiserver's `--http2-max-streams-per-connection`. */
export const HTTP2_MAX_STREAMS = 1000;

/** kube-apiserver's keep-alive idle timeout. */
const IDLE_TIMEOUT_MS = 90_000;
/** kube-apiserver's ReadHeaderTimeout. */
const READ_HEADER_TIMEOUT_MS = 32_000;
/** How long a client may take to complete its TLS handshake. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** The listener is probed when no connection came for this long. */
const ACCEPT_PROBE_AFTER_MS = 5_000;
/** A probe not accepted within this long means the listener stalled. */
const ACCEPT_PROBE_TIMEOUT_MS = 2_000;

function defaultOnWarning(message: string, fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level: "warning", msg: message, ...fields }));
}

/** The default limits on connections, from the process's limit on open files. */
function connectionLimits(
  options: ServeHttpsOptions,
): { maxConnections: number; maxHandshaking: number } {
  let maxConnections = options.maxConnections;
  if (maxConnections === undefined) {
    const soft = readDescriptorLimit()?.soft ?? Infinity;
    maxConnections = Number.isFinite(soft)
      ? Math.max(16, soft - Math.max(64, Math.floor(soft / 8)))
      : Infinity;
  }
  const maxHandshaking = options.maxHandshakingConnections ??
    (Number.isFinite(maxConnections) ? Math.max(8, Math.floor(maxConnections / 2)) : 10_000);
  return { maxConnections, maxHandshaking };
}

function defaultOnError(err: unknown, req: Request): void {
  const message = err instanceof Error ? err.message : String(err);
  console.error(JSON.stringify({
    level: "error",
    msg: "request handler failed",
    method: req.method,
    path: new URL(req.url).pathname,
    error: message,
  }));
}

/** The TLS server of `options`, offering h2 by ALPN when `http2`; not yet listening. */
function createTlsServer(options: ServeHttpsOptions, http2: boolean): Server {
  return createServer({
    cert: options.certPem,
    key: options.keyPem,
    requestCert: options.requestClientCert,
    rejectUnauthorized: false,
    ...(options.requestClientCert && options.clientCaPems?.length
      ? { ca: options.clientCaPems }
      : {}),
    ALPNProtocols: http2 ? ["h2", "http/1.1"] : ["http/1.1"],
  });
}

/** Starts an HTTPS server; resolves once it listens. */
export function serveHttps(
  handler: HttpsHandler,
  options: ServeHttpsOptions,
): Promise<HttpsServer> {
  return new HttpsListener(handler, options).listen();
}

/**
 * One listening server: its TLS server, the guard and watchdog over its connections, the
 * periodic sweep of idle ones, and every open socket and connection (closed with it).
 */
class HttpsListener {
  readonly #options: ServeHttpsOptions;
  readonly #sockets = new Set<Socket>();
  readonly #connections = new Set<Http1Connection | Http2Connection>();
  readonly #http2: boolean;
  readonly #now: () => number;
  readonly #guard: ConnectionGuard;
  readonly #watchdog: AcceptWatchdog;
  readonly #server: Server;
  readonly #ctx: ServeContext;
  #sweep: ReturnType<typeof setInterval> | undefined;
  #closing = false;
  /** The listening socket's close, once {@link HttpsServer.stopListening} began it. */
  #serverClosed: Promise<void> | undefined;
  /** Exchanges in progress (until their response is sent), and who waits for none. */
  #active = 0;
  #idle: (() => void)[] = [];
  #boundPort: number;
  #closed!: () => void;
  readonly #finished = new Promise<void>((resolve) => this.#closed = resolve);

  constructor(handler: HttpsHandler, options: ServeHttpsOptions) {
    this.#options = options;
    this.#boundPort = options.port;
    this.#http2 = options.http2 ?? true;
    this.#now = options.now ?? Date.now;
    const warn = options.onWarning ?? defaultOnWarning;
    const handshakeTimeoutMs = options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    this.#guard = new ConnectionGuard({
      ...connectionLimits(options),
      handshakeTimeoutMs,
      now: this.#now,
      warn,
    });
    this.#watchdog = new AcceptWatchdog({
      hostname: options.hostname,
      port: () => this.#boundPort,
      relisten: () => this.#relisten(),
      now: this.#now,
      probeAfterMs: ACCEPT_PROBE_AFTER_MS,
      probeTimeoutMs: ACCEPT_PROBE_TIMEOUT_MS,
      warn,
    });
    this.#ctx = {
      handler,
      limit: options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES,
      onError: options.onError ?? defaultOnError,
      hostname: options.hostname,
      port: () => this.#boundPort,
    };
    this.#server = createTlsServer(options, this.#http2);
    this.#server.on("connection", (socket: Socket) => this.#onConnection(socket));
    this.#server.on("secureConnection", (socket: TLSSocket) => this.#onSecureConnection(socket));
    this.#server.on("tlsClientError", (_err: unknown, socket: Socket) => socket.destroy());
  }

  /** Listens; resolves with the running server, rejects when the port cannot be bound. */
  listen(): Promise<HttpsServer> {
    const options = this.#options;
    this.#sweep = startSweep(this.#connections, this.#guard, this.#watchdog, this.#now, {
      idleTimeoutMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
      readHeaderTimeoutMs: options.readHeaderTimeoutMs ?? READ_HEADER_TIMEOUT_MS,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS,
    });
    const server = this.#server;
    return new Promise((resolve, reject) => {
      const onListenError = (err: Error) => {
        clearInterval(this.#sweep);
        this.#watchdog.stop();
        reject(err);
      };
      server.once("error", onListenError);
      server.listen(options.port, options.hostname, () => {
        server.off("error", onListenError);
        server.on(
          "error",
          (err: Error) => this.#ctx.onError(err, new Request("https://server.invalid/")),
        );
        const address = server.address();
        this.#boundPort = typeof address === "object" && address ? address.port : options.port;
        const close = (opts?: { graceMs?: number }) =>
          opts?.graceMs ? this.#drainThenClose(opts.graceMs) : this.#close();
        const stopListening = () => void this.#stopListening();
        if (options.signal) {
          if (options.signal.aborted) close();
          else options.signal.addEventListener("abort", () => close(), { once: true });
        }
        const finished = this.#finished;
        const setCertificate = (cert: string, key: string) =>
          this.#server.setSecureContext({ cert, key });
        resolve({
          port: this.#boundPort,
          hostname: options.hostname,
          close,
          stopListening,
          finished,
          setCertificate,
        });
      });
    });
  }

  /**
   * Closes the stalled listening socket and listens anew on the same port, with the same
   * server (a new one would need descriptors for its TLS context, and there may be none).
   */
  #relisten(): void {
    if (this.#closing || this.#serverClosed) return;
    this.#server.close();
    this.#server.listen(this.#boundPort, this.#options.hostname);
  }

  #onConnection(socket: Socket): void {
    this.#watchdog.accepted();
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    this.#guard.accepted(socket);
  }

  #onSecureConnection(socket: TLSSocket): void {
    this.#guard.secured(socket);
    // A watch event or a response is sent at once, not held back by Nagle's algorithm
    // waiting for the previous segment's ACK.
    socket.setNoDelay(true);
    this.#sockets.add(socket);
    const peer = new Peer(socket, this.#options.requestClientCert);
    const onRequest = (ex: Exchange) => {
      this.#active++;
      handleExchange(ex, peer, this.#ctx).catch(() => {
        // Only reachable through a bug in handleExchange(); never let it escape.
        ex.destroy();
      }).finally(() => {
        if (--this.#active === 0) { for (const f of this.#idle.splice(0)) f(); }
      });
    };
    const conn = this.#http2 && socket.alpnProtocol === "h2"
      ? new Http2Connection(socket, {
        maxHeadBytes: MAX_HEAD_BYTES,
        maxConcurrentStreams: this.#options.http2MaxStreamsPerConnection ?? HTTP2_MAX_STREAMS,
        now: this.#now,
        onRequest,
      })
      : new Http1Connection(socket, { maxHeadBytes: MAX_HEAD_BYTES, now: this.#now, onRequest });
    this.#connections.add(conn);
    socket.on("close", () => {
      this.#sockets.delete(socket);
      this.#connections.delete(conn);
    });
  }

  #stopListening(): Promise<void> {
    this.#watchdog.stop();
    this.#serverClosed ??= new Promise<void>((resolve) => this.#server.close(() => resolve()));
    return this.#serverClosed;
  }

  /** Graceful close: no new connections, exchanges get `graceMs`, connections end cleanly. */
  async #drainThenClose(graceMs: number): Promise<void> {
    void this.#stopListening();
    const deadline = Date.now() + graceMs;
    if (this.#active > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.#idle.push(resolve);
      });
      clearTimeout(timer);
    }
    // HTTP/2: GOAWAY after what is queued; HTTP/1.1: the socket ends after its pending writes.
    for (const c of this.#connections) {
      if (c instanceof Http2Connection) c.destroy();
      else c.socket.end();
    }
    const endBy = Date.now() + Math.min(1000, Math.max(100, deadline - Date.now()));
    while (this.#sockets.size > 0 && Date.now() < endBy) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.#close();
  }

  async #close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      clearInterval(this.#sweep);
      this.#watchdog.stop();
      const done = this.#stopListening();
      for (const s of this.#sockets) s.destroy();
      await done;
      this.#closed();
    }
    await this.#finished;
  }
}
