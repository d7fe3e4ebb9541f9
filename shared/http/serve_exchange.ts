/**
 * Serving one exchange of a connection: the Request is built from its head (a small body read
 * whole, a larger one streamed with backpressure and a size limit), the handler runs, and its
 * Response (or a Status for what it threw) is sent.
 *
 * @module
 */
import type { Socket } from "node:net";
import type { DetailedPeerCertificate, TLSSocket } from "node:tls";
import { StatusError, toStatusError } from "../errors/status_error.ts";
import { ChunkedBodyError } from "./chunked_decoder.ts";
import type { ConnInfo, HttpsHandler } from "./conn_info.ts";
import type { Exchange } from "./exchange.ts";
import { fixedResponse } from "./fixed_response.ts";
import { requestUrl } from "./request_url.ts";
import { sendResponse } from "./send_response.ts";

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

/**
 * What a connection tells about every request on it. Its peer certificates are fixed once the
 * handshake is done, and reading them through getPeerCertificate() is costly, so each
 * keep-alive connection reads them once.
 */
export class Peer {
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

/** Serves one exchange, then releases it. */
export async function handleExchange(ex: Exchange, peer: Peer, ctx: ServeContext): Promise<void> {
  try {
    await serveExchange(ex, peer, ctx);
  } finally {
    ex.release();
  }
}

/** What serving one exchange needs from its server. */
export interface ServeContext {
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
