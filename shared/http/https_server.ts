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
import { createServer, type DetailedPeerCertificate, type Server, type TLSSocket } from "node:tls";
import { StatusError, toStatusError } from "../errors/status_error.ts";
import { ChunkedBodyError } from "./chunked_decoder.ts";
import type { Exchange } from "./exchange.ts";
import { fixedResponse } from "./fixed_response.ts";
import { Http1Connection } from "./http1_connection.ts";
import { Http2Connection } from "./http2_connection.ts";
import { requestUrl } from "./request_url.ts";
import { AcceptWatchdog } from "./accept_watchdog.ts";
import { ConnectionGuard } from "./connection_guard.ts";
import { readDescriptorLimit } from "./descriptor_limit.ts";
import { sendResponse } from "./send_response.ts";
import { startSweep } from "./start_sweep.ts";

export { fixedBody, FixedResponse, fixedResponse } from "./fixed_response.ts";

/**
 * What the handler learns about a request besides the `Request` itself: its client and
 * connection. One per request, passed explicitly as the handler's second argument.
 */
export interface ConnInfo {
  readonly remoteAddr: { readonly hostname: string; readonly port: number };
  /** The client's certificates (DER, leaf first, as presented); empty when none. */
  readonly peerCertificates: Uint8Array[];
  /**
   * Aborted when the client goes away (its connection closes, or it resets its HTTP/2 stream)
   * before the response is complete. The Request carries no signal of its own: a Request
   * built with one derives a dependent signal, which makes the constructor markedly slower.
   */
  readonly signal: AbortSignal;
  /**
   * The complete body when the listener read it ahead (see
   * {@link BUFFERED_REQUEST_BODY_BYTES}), else undefined. Reading it leaves `req.body`
   * untouched; the bytes are shared, so do not modify them.
   */
  readonly body: Uint8Array | undefined;
  /**
   * The header names as the client sent them (any case, repeated names repeated). Scanning
   * them is much cheaper than iterating `req.headers`, which sorts and combines on every
   * iteration.
   */
  readonly headerNames: readonly string[];
}

/** A fetch-style request handler. */
export type HttpsHandler = (req: Request, conn: ConnInfo) => Promise<Response> | Response;

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
  /** Stops listening and ends every open connection, long-running streams included. */
  close(): Promise<void>;
  /** Resolves once the server is closed. */
  finished: Promise<void>;
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

/**
 * Request bodies that declare a Content-Length up to this size are read whole before the
 * handler runs, and the Request gets them as bytes, which spares a ReadableStream, its
 * controller and a reader per request.
 * Larger and chunked bodies are streamed with backpressure.
 */
export const BUFFERED_REQUEST_BODY_BYTES = 64 * 1024;

function requestEntityTooLarge(limit: number): StatusError {
  return StatusError.requestEntityTooLarge(`limit is ${limit}`);
}

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

/**
 * What a connection tells about every request on it. Its peer certificates are fixed once the
 * handshake is done, and reading them through getPeerCertificate() is costly, so each
 * keep-alive connection reads them once.
 */
class Peer {
  readonly remoteAddr: { readonly hostname: string; readonly port: number };
  readonly #socket: Socket;
  readonly #wantCerts: boolean;
  #certs: Uint8Array[] | undefined;

  constructor(socket: Socket, wantCerts: boolean) {
    this.#socket = socket;
    this.#wantCerts = wantCerts;
    this.remoteAddr = Object.freeze({
      hostname: socket.remoteAddress ?? "",
      port: socket.remotePort ?? 0,
    });
  }

  /** A copy of the peer's certificates (empty when none or not asked for). */
  certificates(): Uint8Array[] {
    if (!this.#wantCerts) return [];
    if (!this.#certs) {
      const read = readPeerCertificates(this.#socket);
      if (!read) return [];
      this.#certs = read;
    }
    return [...this.#certs];
  }
}

/** The {@link ConnInfo} of one request. */
class RequestConn implements ConnInfo {
  readonly remoteAddr: { readonly hostname: string; readonly port: number };
  readonly peerCertificates: Uint8Array[];
  readonly signal: AbortSignal;
  readonly body: Uint8Array | undefined;
  readonly #raw: string[];
  #names: string[] | undefined;

  constructor(peer: Peer, ex: Exchange, body: Uint8Array | undefined) {
    this.remoteAddr = peer.remoteAddr;
    this.peerCertificates = peer.certificates();
    this.signal = ex.signal;
    this.body = body;
    this.#raw = ex.head.rawHeaders;
  }

  get headerNames(): readonly string[] {
    if (!this.#names) {
      const raw = this.#raw;
      const names: string[] = [];
      for (let i = 0; i < raw.length; i += 2) names.push(raw[i]);
      this.#names = names;
    }
    return this.#names;
  }
}

/** The connection's certificates, or undefined when they cannot be read (not cached). */
function readPeerCertificates(socket: Socket): Uint8Array[] | undefined {
  const tls = socket as TLSSocket;
  if (typeof tls.getPeerCertificate !== "function") return [];
  let cert: DetailedPeerCertificate | undefined;
  try {
    cert = tls.getPeerCertificate(true);
  } catch {
    return undefined;
  }
  const out: Uint8Array[] = [];
  const seen = new Set<unknown>();
  while (cert && cert.raw && !seen.has(cert) && out.length < 16) {
    seen.add(cert);
    out.push(new Uint8Array(cert.raw));
    const next: DetailedPeerCertificate | undefined = cert.issuerCertificate;
    if (!next || next === cert) break;
    cert = next;
  }
  return out;
}

function statusResponse(err: StatusError): Response {
  return fixedResponse(JSON.stringify(err.status), {
    status: err.code,
    headers: { "content-type": "application/json", ...err.headers },
  });
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
  const limit = options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const onError = options.onError ?? defaultOnError;
  const now = options.now ?? Date.now;
  const idleTimeoutMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const readHeaderTimeoutMs = options.readHeaderTimeoutMs ?? READ_HEADER_TIMEOUT_MS;
  const sockets = new Set<Socket>();
  const connections = new Set<Http1Connection | Http2Connection>();
  const http2 = options.http2 ?? true;
  const maxStreams = options.http2MaxStreamsPerConnection ?? HTTP2_MAX_STREAMS;
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  const warn = options.onWarning ?? defaultOnWarning;
  let closing = false;
  let boundPort = options.port;

  const guard = new ConnectionGuard({
    ...connectionLimits(options),
    handshakeTimeoutMs,
    now,
    warn,
  });
  const watchdog = new AcceptWatchdog({
    hostname: options.hostname,
    port: () => boundPort,
    relisten,
    now,
    probeAfterMs: ACCEPT_PROBE_AFTER_MS,
    probeTimeoutMs: ACCEPT_PROBE_TIMEOUT_MS,
    warn,
  });
  const server = createTlsServer(options, http2);
  server.on("connection", onConnection);
  server.on("secureConnection", onSecureConnection);
  server.on("tlsClientError", (_err: unknown, socket: Socket) => socket.destroy());

  /**
   * Closes the stalled listening socket and listens anew on the same port, with the same
   * server (a new one would need descriptors for its TLS context, and there may be none).
   */
  function relisten(): void {
    if (closing) return;
    server.close();
    server.listen(boundPort, options.hostname);
  }

  function onConnection(socket: Socket): void {
    watchdog.accepted();
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    guard.accepted(socket);
  }

  function onSecureConnection(socket: TLSSocket): void {
    guard.secured(socket);
    // A watch event or a response is sent at once, not held back by Nagle's algorithm
    // waiting for the previous segment's ACK.
    socket.setNoDelay(true);
    sockets.add(socket);
    const peer = new Peer(socket, options.requestClientCert);
    const onRequest = (ex: Exchange) => {
      handle(ex, peer, ctx).catch(() => {
        // Only reachable through a bug in handle(); never let it escape.
        ex.destroy();
      });
    };
    const conn = http2 && socket.alpnProtocol === "h2"
      ? new Http2Connection(socket, {
        maxHeadBytes: MAX_HEAD_BYTES,
        maxConcurrentStreams: maxStreams,
        now,
        onRequest,
      })
      : new Http1Connection(socket, { maxHeadBytes: MAX_HEAD_BYTES, now, onRequest });
    connections.add(conn);
    socket.on("close", () => {
      sockets.delete(socket);
      connections.delete(conn);
    });
  }

  const sweep = startSweep(connections, guard, watchdog, now, {
    idleTimeoutMs,
    readHeaderTimeoutMs,
    handshakeTimeoutMs,
  });

  const ctx: ServeContext = {
    handler,
    limit,
    onError,
    hostname: options.hostname,
    port: () => boundPort,
  };

  let closed!: () => void;
  const finished = new Promise<void>((resolve) => closed = resolve);

  const close = async (): Promise<void> => {
    if (!closing) {
      closing = true;
      clearInterval(sweep);
      watchdog.stop();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await done;
      closed();
    }
    await finished;
  };

  return new Promise((resolve, reject) => {
    const onListenError = (err: Error) => {
      clearInterval(sweep);
      watchdog.stop();
      reject(err);
    };
    server.once("error", onListenError);
    server.listen(options.port, options.hostname, () => {
      server.off("error", onListenError);
      server.on("error", (err: Error) => onError(err, new Request("https://server.invalid/")));
      const address = server.address();
      boundPort = typeof address === "object" && address ? address.port : options.port;
      if (options.signal) {
        if (options.signal.aborted) close();
        else options.signal.addEventListener("abort", () => close(), { once: true });
      }
      resolve({ port: boundPort, hostname: options.hostname, close, finished });
    });
  });
}

/** Serves one exchange, then releases it. */
async function handle(ex: Exchange, peer: Peer, ctx: ServeContext): Promise<void> {
  try {
    await serveExchange(ex, peer, ctx);
  } finally {
    ex.release();
  }
}

/** What serving one exchange needs from its server. */
interface ServeContext {
  handler: HttpsHandler;
  /** The limit on a request body, in bytes. */
  limit: number;
  onError: (err: unknown, req: Request) => void;
  /** The listening address, for requests without a usable Host. */
  hostname: string;
  /** The port the server listens on. */
  port: () => number;
}

/**
 * Serves one exchange: reads the request (answering a malformed one 400 and one over the body
 * limit 413), runs the handler, and sends its response (a Status for what it threw).
 */
async function serveExchange(ex: Exchange, peer: Peer, ctx: ServeContext): Promise<void> {
  const { handler, limit, onError } = ctx;
  const head = ex.head;
  let request: Request;
  let conn: ConnInfo;
  /** Why the request body could not be read (413, 400), which then is the answer. */
  let bodyError: StatusError | undefined;
  try {
    const url = requestUrl(head, ctx.hostname, ctx.port());
    const method = head.method;
    const declared = head.body.kind === "length" ? head.body.length : 0;
    if (declared > limit) throw requestEntityTooLarge(limit);
    const chunked = head.body.kind === "chunked";
    const hasBody = method !== "GET" && method !== "HEAD" && (chunked || declared > 0);
    let whole: Uint8Array<ArrayBuffer> | undefined;
    let body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null = null;
    if (hasBody && !chunked && declared <= BUFFERED_REQUEST_BODY_BYTES) {
      whole = await readWholeBody(ex, declared);
      // The client left before sending its body: nobody is there to answer.
      if (!whole) return;
      body = whole;
    } else if (hasBody) {
      body = requestBody(ex, limit, (err) => {
        bodyError = err;
      });
    }
    const init: RequestInit & { duplex?: string } = { method, body };
    if (body instanceof ReadableStream) init.duplex = "half";
    request = new Request(url, init);
    // Appending to the Request's own headers skips converting a HeadersInit.
    const headers = request.headers;
    const raw = head.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
    conn = new RequestConn(peer, ex, whole);
  } catch (err) {
    const status = err instanceof StatusError ? err : StatusError.badRequest(
      `malformed request: ${err instanceof Error ? err.message : String(err)}`,
    );
    await sendResponse(ex, statusResponse(status));
    return;
  }

  let response: Response;
  try {
    response = await handler(request, conn);
    if (!(response instanceof Response)) throw new Error("handler did not return a Response");
  } catch (err) {
    if (bodyError) {
      response = statusResponse(bodyError);
    } else {
      if (!(err instanceof StatusError)) onError(err, request);
      response = statusResponse(toStatusError(err));
    }
  }
  if (bodyError && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    response = statusResponse(bodyError);
  }
  await sendResponse(ex, response);
}

/**
 * Reads a whole request body of `length` bytes into a fresh array; undefined when the client
 * goes away first.
 */
function readWholeBody(
  ex: Exchange,
  length: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  return new Promise((resolve) => {
    const out = new Uint8Array(length);
    let offset = 0;
    ex.readBody({
      data(chunk) {
        out.set(chunk, offset);
        offset += chunk.length;
        return true;
      },
      end() {
        resolve(out);
      },
      error() {
        resolve(undefined);
      },
    });
  });
}

/**
 * The request body as a ReadableStream with backpressure and a size limit. A body over the
 * limit (413) or with broken chunked framing (400) errors the stream with a StatusError, also
 * handed to `onBodyError`.
 */
function requestBody(
  ex: Exchange,
  limit: number,
  onBodyError: (err: StatusError) => void,
): ReadableStream<Uint8Array> {
  let received = 0;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      ex.readBody({
        data(chunk) {
          if (done) return true;
          received += chunk.length;
          if (received > limit) {
            done = true;
            const tooLarge = requestEntityTooLarge(limit);
            onBodyError(tooLarge);
            controller.error(tooLarge);
            return true;
          }
          // A copy: the chunk is a view of the connection's buffer.
          controller.enqueue(chunk.slice());
          return (controller.desiredSize ?? 1) > 0;
        },
        end() {
          if (done) return;
          done = true;
          controller.close();
        },
        error(err) {
          if (done) return;
          done = true;
          if (err instanceof ChunkedBodyError) {
            const malformed = StatusError.badRequest(
              `malformed chunked request body: ${err.message}`,
            );
            onBodyError(malformed);
            controller.error(malformed);
          } else controller.error(err);
        },
      });
    },
    pull() {
      ex.resumeBody();
    },
    cancel() {
      done = true;
      ex.resumeBody();
    },
  }, { highWaterMark: 4 });
}
