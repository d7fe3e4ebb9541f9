/**
 * The HTTPS listener. Built on `node:https` because `Deno.serve` cannot ask for client
 * certificates: with `requestCert: true, rejectUnauthorized: false` the TLS layer accepts any
 * client certificate and hands it to us unverified (verification is apiserver/pki's job). The
 * handler is fetch-style: it gets a `Request` (method, full URL, headers, streaming body, and a
 * signal that fires when the client goes away) plus the connection's peer certificates, and
 * returns a `Response` whose body is streamed chunk by chunk with backpressure.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { Socket } from "node:net";
import type { DetailedPeerCertificate, TLSSocket } from "node:tls";
import { StatusError, toStatusError } from "../errors/status_error.ts";

/** What the handler learns about the connection. */
export interface ConnInfo {
  remoteAddr: { hostname: string; port: number };
  /** The client's certificates (DER, leaf first, as presented); empty when none. */
  peerCertificates: Uint8Array[];
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
  /** Aborting it closes the server. */
  signal?: AbortSignal;
  /** Largest accepted request body (default 3 MiB, as kube-apiserver). */
  maxRequestBodyBytes?: number;
  /** Called with errors the handler threw (default: one JSON line on stderr). */
  onError?: (err: unknown, req: Request) => void;
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

/**
 * Request bodies that declare a Content-Length up to this size are read whole before the
 * handler runs, and the Request gets them as bytes: a streamed body costs ~30 µs more per
 * request (the ReadableStream, its controller and reader), which is most of a create's budget.
 * Larger and chunked bodies are streamed with backpressure.
 */
export const BUFFERED_REQUEST_BODY_BYTES = 64 * 1024;

const bufferedBodies = new WeakMap<Request, Uint8Array>();

/**
 * The complete body of a request whose body the listener read ahead (see
 * {@link BUFFERED_REQUEST_BODY_BYTES}), or undefined. Reading it leaves `req.body` untouched;
 * the bytes are shared, so do not modify them.
 */
export function bufferedBody(req: Request): Uint8Array | undefined {
  return bufferedBodies.get(req);
}

const receivedNames = new WeakMap<Request, string[]>();

/**
 * The header names of a request as the client sent them (any case, repeated names repeated),
 * for requests this listener made; undefined for other requests. Scanning them is much cheaper
 * than iterating `req.headers`, which sorts and combines on every iteration (~9 µs).
 */
export function receivedHeaderNames(req: Request): string[] | undefined {
  const raw = receivedNames.get(req);
  if (!raw) return undefined;
  const names: string[] = [];
  for (let i = 0; i < raw.length; i += 2) names.push(raw[i]);
  return names;
}

const fixedBodies = new WeakMap<Response, string | Uint8Array>();

/**
 * A Response whose whole body is known: the listener writes status, headers and body in one
 * piece (with a Content-Length) instead of reading the body stream, which saves ~40 µs per
 * response. Everywhere else it is an ordinary Response. `null` is an empty body.
 */
export function fixedResponse(body: string | Uint8Array | null, init: ResponseInit): Response {
  const response = new Response(body as BodyInit | null, init);
  fixedBodies.set(response, body ?? "");
  return response;
}

function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError({
    code: 413,
    reason: "RequestEntityTooLarge",
    message: `Request entity too large: limit is ${limit}`,
  });
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
 * Peer certificates per connection: they are fixed once the handshake is done, and reading
 * them through getPeerCertificate() costs ~0.15 ms per request (measured with
 * scripts/bench/create_list.ts), so each keep-alive connection reads them once.
 */
const peerCertificateCache = new WeakMap<Socket, Uint8Array[]>();

function peerCertificates(socket: Socket): Uint8Array[] {
  let certs = peerCertificateCache.get(socket);
  if (!certs) {
    const read = readPeerCertificates(socket);
    if (!read) return [];
    certs = read;
    peerCertificateCache.set(socket, certs);
  }
  return [...certs];
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

/**
 * Splits a combined header value into its list elements, keeping commas inside quoted strings
 * (Warning values such as `299 - "a, b"` contain them).
 */
export function splitHeaderList(value: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted && c === "\\" && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === "," && !quoted) {
      if (current.trim()) out.push(current.trim());
      current = "";
      continue;
    }
    current += c;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

function responseHeaders(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    if (name === "set-cookie") continue;
    out[name] = name === "warning" ? splitHeaderList(value) : value;
  }
  const cookies = headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  return out;
}

function statusResponse(err: StatusError): Response {
  return fixedResponse(JSON.stringify(err.status), {
    status: err.code,
    headers: { "content-type": "application/json", ...err.headers },
  });
}

/** Starts an HTTPS server; resolves once it listens. */
export function serveHttps(
  handler: HttpsHandler,
  options: ServeHttpsOptions,
): Promise<HttpsServer> {
  const limit = options.maxRequestBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const onError = options.onError ?? defaultOnError;
  const sockets = new Set<Socket>();
  const inFlight = new Set<AbortController>();
  let closing = false;

  const server: Server = createServer({
    cert: options.certPem,
    key: options.keyPem,
    requestCert: options.requestClientCert,
    rejectUnauthorized: false,
  }, (req, res) => {
    handle(req, res).catch((err) => {
      // Only reachable through a bug in handle(); never let it escape.
      try {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      } catch { /* already gone */ }
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("secureConnection", (socket: Socket) => {
    // As Node's http server does by default: a watch event or a response is sent at once,
    // not held back by Nagle's algorithm waiting for the previous segment's ACK.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("tlsClientError", (_err: unknown, socket: Socket) => socket.destroy());
  server.on("clientError", (_err: unknown, socket: Socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    else socket.destroy();
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    inFlight.add(abort);
    let finished = false;
    res.on("close", () => {
      inFlight.delete(abort);
      if (!finished || !res.writableFinished) abort.abort(new Error("client disconnected"));
    });

    const socket = req.socket;
    const conn: ConnInfo = {
      remoteAddr: { hostname: socket.remoteAddress ?? "", port: socket.remotePort ?? 0 },
      peerCertificates: options.requestClientCert ? peerCertificates(socket) : [],
    };

    let request: Request;
    let bodyTooLarge = false;
    try {
      const url = requestUrl(req);
      const method = req.method ?? "GET";
      const declared = Number(req.headers["content-length"] ?? "0");
      if (Number.isFinite(declared) && declared > limit) throw requestEntityTooLarge(limit);
      const chunked = req.headers["transfer-encoding"] !== undefined;
      const hasBody = method !== "GET" && method !== "HEAD" && (chunked || declared > 0);
      let whole: Uint8Array<ArrayBuffer> | undefined;
      let body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null = null;
      if (hasBody && !chunked && declared <= BUFFERED_REQUEST_BODY_BYTES) {
        whole = await readWholeBody(req);
        // The client left before sending its body: nobody is there to answer.
        if (!whole) return;
        body = whole;
      } else if (hasBody) {
        body = requestBody(req, limit, () => {
          bodyTooLarge = true;
        });
      }
      const init: RequestInit & { duplex?: string } = { method, body, signal: abort.signal };
      if (body instanceof ReadableStream) init.duplex = "half";
      request = new Request(url, init);
      // Appending to the Request's own headers skips converting a HeadersInit (~10 µs).
      const headers = request.headers;
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      }
      receivedNames.set(request, req.rawHeaders);
      if (whole) bufferedBodies.set(request, whole);
    } catch (err) {
      const status = err instanceof StatusError ? err : StatusError.badRequest(
        `malformed request: ${err instanceof Error ? err.message : String(err)}`,
      );
      res.setHeader("connection", "close");
      await send(req, res, statusResponse(status), abort.signal);
      finished = true;
      return;
    }

    let response: Response;
    try {
      response = await handler(request, conn);
      if (!(response instanceof Response)) throw new Error("handler did not return a Response");
    } catch (err) {
      if (bodyTooLarge) {
        response = statusResponse(requestEntityTooLarge(limit));
      } else {
        if (!(err instanceof StatusError)) onError(err, request);
        response = statusResponse(toStatusError(err));
      }
    }
    if (bodyTooLarge && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      response = statusResponse(requestEntityTooLarge(limit));
    }
    if (bodyTooLarge) res.setHeader("connection", "close");
    await send(req, res, response, abort.signal);
    finished = true;
  }

  function requestUrl(req: IncomingMessage): string {
    const target = req.url ?? "/";
    if (target.startsWith("/")) {
      const host = req.headers.host;
      // A plain host[:port] and an origin-form target make the URL as they are; the Request
      // parses it once (parsing it here too cost ~15 µs per request).
      if (host && !target.startsWith("//") && PLAIN_HOST.test(host)) {
        return `https://${host}${target}`;
      }
      if (host) {
        try {
          return new URL(target, `https://${host}`).href;
        } catch { /* fall through to the listening address */ }
      }
      const h = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
      return new URL(target, `https://${h}:${boundPort}`).href;
    }
    return new URL(target).href;
  }

  let boundPort = options.port;
  const finished = new Promise<void>((resolve) => server.on("close", () => resolve()));

  const close = async (): Promise<void> => {
    if (!closing) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const a of inFlight) a.abort(new Error("server closing"));
      for (const s of sockets) s.destroy();
      await closed;
    }
    await finished;
  };

  return new Promise((resolve, reject) => {
    const onListenError = (err: Error) => reject(err);
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

/** A Host header that is a DNS name, IPv4 or bracketed IPv6 address, with an optional port. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/**
 * Reads a whole request body (its size already checked against the limit by its
 * Content-Length, which the HTTP parser enforces); undefined when the client goes away first.
 */
function readWholeBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (value: Uint8Array<ArrayBuffer> | undefined) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    req.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on("end", () => {
      // A fresh copy: the chunks may be views of buffers the socket reuses.
      const out = new Uint8Array(size);
      let offset = 0;
      for (const c of chunks) {
        out.set(c, offset);
        offset += c.length;
      }
      settle(out);
    });
    req.on("error", () => settle(undefined));
    req.on("aborted", () => settle(undefined));
    req.on("close", () => settle(undefined));
  });
}

/** The request body as a ReadableStream with backpressure and a size limit. */
function requestBody(
  req: IncomingMessage,
  limit: number,
  onTooLarge: () => void,
): ReadableStream<Uint8Array> {
  let received = 0;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        if (done) return;
        received += chunk.length;
        if (received > limit) {
          done = true;
          onTooLarge();
          controller.error(requestEntityTooLarge(limit));
          req.resume();
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) req.pause();
      });
      req.on("end", () => {
        if (done) return;
        done = true;
        controller.close();
      });
      req.on("error", (err: Error) => {
        if (done) return;
        done = true;
        controller.error(err);
      });
      req.on("aborted", () => {
        if (done) return;
        done = true;
        controller.error(new Error("client aborted the request"));
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      done = true;
      req.resume();
    },
  }, { highWaterMark: 4 });
}

const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

/** Writes a Response: headers, then the body streamed with backpressure. */
async function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  signal: AbortSignal,
): Promise<void> {
  const headers = responseHeaders(response.headers);
  const noBody = req.method === "HEAD" || NO_BODY_STATUS.has(response.status) ||
    (response.status >= 100 && response.status < 200);
  const fixed = fixedBodies.get(response);
  if (fixed !== undefined && !response.bodyUsed) {
    // Status line, headers and body in one write.
    if (noBody) {
      writeHead(res, response, headers);
      res.end();
      return;
    }
    headers["content-length"] = String(
      typeof fixed === "string" ? Buffer.byteLength(fixed) : fixed.byteLength,
    );
    writeHead(res, response, headers);
    res.end(fixed);
    return;
  }
  const body = response.body;
  if (noBody || !body) {
    if (body) await body.cancel().catch(() => {});
    if (!noBody && !("content-length" in headers)) headers["content-length"] = "0";
    writeHead(res, response, headers);
    res.end();
    return;
  }

  const reader = body.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  if (signal.aborted) {
    cancel();
    return;
  }
  signal.addEventListener("abort", cancel, { once: true });
  try {
    // Collect what the body yields without waiting: a complete short body gets a
    // Content-Length, anything still pending is sent chunked as it arrives.
    const first: Uint8Array[] = [];
    let ended = false;
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = reader.read();
    while (pending) {
      const result = await settlesSoon(pending);
      if (result === TIMEOUT) break;
      pending = null;
      if (result.done) {
        ended = true;
        break;
      }
      first.push(result.value);
      pending = reader.read();
    }
    if (ended && !("content-length" in headers) && !("transfer-encoding" in headers)) {
      headers["content-length"] = String(first.reduce((n, c) => n + c.length, 0));
    }
    writeHead(res, response, headers);
    // A body still streaming (a watch) gets its headers now, before its first chunk.
    if (pending && first.length === 0) res.flushHeaders();
    for (const chunk of first) await write(res, chunk, signal);
    if (pending) {
      let result = await pending;
      while (!result.done) {
        if (signal.aborted) return;
        await write(res, result.value, signal);
        result = await reader.read();
      }
    }
    if (!signal.aborted) res.end();
  } catch (err) {
    // The body failed mid-stream: the status is already sent, so end the connection abruptly
    // to tell the client the response is incomplete.
    if (!res.headersSent && !signal.aborted) {
      const status = toStatusError(err);
      res.writeHead(status.code, { "content-type": "application/json" });
      res.end(JSON.stringify(status.status));
    } else {
      res.destroy();
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}

const TIMEOUT = Symbol("timeout");

/** The promise's result if it settles before the next macrotask, else TIMEOUT. */
function settlesSoon<T>(p: Promise<T>): Promise<T | typeof TIMEOUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), 0);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function writeHead(
  res: ServerResponse,
  response: Response,
  headers: Record<string, string | string[]>,
): void {
  if (response.statusText) res.writeHead(response.status, response.statusText, headers);
  else res.writeHead(response.status, headers);
}

/** Writes one chunk, waiting for the socket to drain when its buffer is full. */
function write(res: ServerResponse, chunk: Uint8Array, signal: AbortSignal): Promise<void> {
  if (chunk.length === 0 || signal.aborted) return Promise.resolve();
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
