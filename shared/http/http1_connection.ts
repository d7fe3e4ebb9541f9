/**
 * One HTTP/1.1 connection on the server side (RFC 9112), over any byte stream with Node's
 * socket interface (here a TLS socket). It reads request heads and bodies, hands each request
 * to the server as an {@link Http1Exchange}, one at a time (pipelined requests wait their
 * turn), frames the response (Content-Length, chunked, or until close), and keeps the
 * connection alive between requests.
 *
 * Node's `http` module does the same under Deno at a much higher CPU cost per request (figures
 * in scripts/bench/README.md).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { ChunkedBodyError, ChunkedDecoder } from "./chunked_decoder.ts";
import type { BodySink, Exchange } from "./exchange.ts";
import { currentHttpDate } from "./http_date.ts";
import { HttpParseError, parseRequestHead, type RequestHead } from "./request_head.ts";
import type { UpgradedConnection } from "./upgrade_response.ts";

/** Options of {@link Http1Connection}. */
export interface Http1ConnectionOptions {
  /** Largest request head (request line and header fields), in bytes. */
  maxHeadBytes: number;
  /** Called for each request, in order; the exchange must be ended for the next one to start. */
  onRequest: (exchange: Http1Exchange) => void;
  /** Clock for the idle and head timeouts (ms). */
  now: () => number;
}

const HEAD_END = "\r\n\r\n";
const CRLF = Buffer.from("\r\n");
const LAST_CHUNK = Buffer.from("0\r\n\r\n");
const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";
/** Pipelined bytes kept while a response is pending before reading pauses. */
const MAX_PIPELINED_BYTES = 1024 * 1024;
/** Head text without characters above 0x7f is the same in UTF-8 and latin1. */
const NON_ASCII = /[\u0080-\uffff]/;

let dateValue = "";
let dateLine = "";

/** The Date field for now, formatted once per second. */
function currentDateLine(): string {
  const date = currentHttpDate();
  if (date !== dateValue) {
    dateValue = date;
    dateLine = `date: ${date}\r\n`;
  }
  return dateLine;
}

type Phase = "head" | "body" | "waiting" | "upgraded" | "closed";

/** See the module documentation. */
export class Http1Connection {
  readonly socket: Socket;
  #opts: Http1ConnectionOptions;
  #buf: Buffer | undefined;
  #scanned = 0;
  #phase: Phase = "head";
  #exchange: Http1Exchange | undefined;
  #bodyRemaining = 0;
  #decoder: ChunkedDecoder | undefined;
  #paused = false;
  /** When the connection last became idle, or when the current head started (ms). */
  #since: number;
  readonly #dataListener = (chunk: Buffer) => this.#onData(chunk);

  constructor(socket: Socket, opts: Http1ConnectionOptions) {
    this.socket = socket;
    this.#opts = opts;
    this.#since = opts.now();
    socket.on("data", this.#dataListener);
    socket.on("close", () => this.#onClose());
    socket.on("error", () => socket.destroy());
  }

  /**
   * What the connection is doing, for timeouts: `idle` (between requests, since `since`),
   * `head` (a head is arriving, since `since`), `busy` (a request is being served), `closed`.
   */
  get state(): { kind: "idle" | "head" | "busy" | "closed"; since: number } {
    if (this.#phase === "closed") return { kind: "closed", since: this.#since };
    // An upgraded connection belongs to its new protocol, which times it out itself.
    if (this.#phase !== "head") return { kind: "busy", since: this.#since };
    return { kind: this.#buf?.length ? "head" : "idle", since: this.#since };
  }

  /** Ends the connection at once (server shutdown, timeouts). */
  destroy(): void {
    this.socket.destroy();
  }

  #onData(chunk: Buffer): void {
    if (this.#phase === "closed") return;
    if (this.#phase === "head" && !this.#buf?.length) this.#since = this.#opts.now();
    this.#buf = this.#buf?.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    this.#process();
  }

  #onClose(): void {
    const ex = this.#exchange;
    this.#phase = "closed";
    this.#buf = undefined;
    if (ex) {
      if (this.#bodyRemaining > 0 || (this.#decoder && !this.#decoder.done)) {
        ex._sink?.error(new Error("client disconnected before the request body was complete"));
      }
      ex._connectionClosed();
    }
  }

  #process(): void {
    while (this.#buf?.length) {
      switch (this.#phase) {
        case "head":
          if (!this.#readHead()) return;
          break;
        case "body":
          if (this.#paused || !this.#readBody()) return;
          break;
        case "waiting":
          if (this.#buf.length > MAX_PIPELINED_BYTES && !this.#paused) {
            this.#paused = true;
            this.socket.pause();
          }
          return;
        case "closed":
          return;
      }
    }
  }

  /** Parses a head out of the buffer and starts its exchange; false when more bytes are needed. */
  #readHead(): boolean {
    const buf = this.#buf!;
    const end = buf.indexOf(HEAD_END, Math.max(0, this.#scanned - 3), "latin1");
    if (end < 0) {
      // A head that cannot become valid is answered now, not when the head timeout expires.
      const bad = malformedHeadPrefix(buf, this.#scanned);
      this.#scanned = buf.length;
      if (bad) this.#fail(new HttpParseError(400, bad));
      else if (buf.length > this.#opts.maxHeadBytes) {
        this.#fail(new HttpParseError(431, "request header fields too large"));
      }
      return false;
    }
    if (end > this.#opts.maxHeadBytes) {
      this.#fail(new HttpParseError(431, "request header fields too large"));
      return false;
    }
    let head: RequestHead;
    try {
      head = parseRequestHead(buf.toString("latin1", 0, end));
    } catch (err) {
      this.#fail(
        err instanceof HttpParseError ? err : new HttpParseError(400, "malformed request head"),
      );
      return false;
    }
    this.#buf = buf.subarray(end + 4);
    this.#scanned = 0;
    this.#bodyRemaining = head.body.kind === "length" ? head.body.length : 0;
    this.#decoder = head.body.kind === "chunked" ? new ChunkedDecoder() : undefined;
    this.#phase = head.body.kind === "none" ? "waiting" : "body";
    const ex = new Http1Exchange(this, head);
    this.#exchange = ex;
    this.#opts.onRequest(ex);
    if (head.body.kind === "none") ex._sink?.end();
    return true;
  }

  /** Feeds buffered body bytes to the exchange; false when the buffer is used up or paused. */
  #readBody(): boolean {
    const ex = this.#exchange!;
    const buf = this.#buf!;
    let used: number;
    let complete: boolean;
    let wantsPause = false;
    const deliver = (data: Uint8Array) => {
      if (data.length > 0 && ex._sink && !ex._sink.data(data)) wantsPause = true;
    };
    if (this.#decoder) {
      try {
        used = this.#decoder.push(buf, deliver);
      } catch (err) {
        // The body's framing is lost: the request fails and the connection cannot go on.
        ex._bodyBroken = true;
        this.#buf = undefined;
        this.#phase = "waiting";
        ex._sink?.error(err instanceof ChunkedBodyError ? err : new Error(String(err)));
        return false;
      }
      complete = this.#decoder.done;
    } else {
      used = Math.min(this.#bodyRemaining, buf.length);
      deliver(buf.subarray(0, used));
      this.#bodyRemaining -= used;
      complete = this.#bodyRemaining === 0;
    }
    this.#buf = buf.subarray(used);
    if (complete) {
      this.#phase = "waiting";
      this.#decoder = undefined;
      ex._sink?.end();
    } else if (wantsPause) {
      this.#paused = true;
      this.socket.pause();
    }
    return !wantsPause || complete;
  }

  /** The sink wants more body data. */
  _resumeBody(): void {
    if (!this.#paused || this.#phase !== "body") return;
    this.#paused = false;
    this.socket.resume();
    this.#process();
  }

  /**
   * Switches the connection to another protocol after the exchange's request: writes the 101
   * head and stops reading requests. Undefined (nothing written) when the request still has
   * body bytes to come or the connection is closed.
   */
  _upgrade(ex: Http1Exchange, headerLines: string): UpgradedConnection | undefined {
    if (ex !== this.#exchange || this.#phase !== "waiting" || ex._bodyBroken) return undefined;
    this.#phase = "upgraded";
    this.#exchange = undefined;
    this.socket.off("data", this.#dataListener);
    const head = this.#buf ?? new Uint8Array(0);
    this.#buf = undefined;
    this.socket.write(
      `HTTP/1.1 101 Switching Protocols\r\n${currentDateLine()}${headerLines}` +
        `connection: Upgrade\r\n\r\n`,
    );
    if (this.#paused) {
      this.#paused = false;
      this.socket.resume();
    }
    return { socket: this.socket, head };
  }

  /** Whether the current request's body has been read to its end. */
  _bodyComplete(): boolean {
    return this.#phase !== "body" && !this.#exchange?._bodyBroken;
  }

  /** The exchange's response is complete: close, or go on with the next request. */
  _finished(ex: Http1Exchange, keepOpen: boolean): void {
    if (ex !== this.#exchange || this.#phase === "closed") return;
    this.#exchange = undefined;
    if (!keepOpen) {
      this.#phase = "closed";
      this.#buf = undefined;
      this.socket.end();
      return;
    }
    this.#phase = "head";
    this.#since = this.#opts.now();
    if (this.#paused) {
      this.#paused = false;
      this.socket.resume();
    }
    // Not from inside the handler's call stack: the next request starts on a fresh one.
    if (this.#buf?.length) queueMicrotask(() => this.#process());
  }

  /** Answers a head that cannot be parsed, then closes. */
  #fail(err: HttpParseError): void {
    this.#phase = "closed";
    this.#buf = undefined;
    const body = JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: err.message,
      reason: err.status === 431 ? "RequestHeaderFieldsTooLarge" : "BadRequest",
      code: err.status,
    });
    this.socket.end(
      `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n${currentDateLine()}` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
  }
}

/**
 * Why the start of a head, still incomplete, can never be a valid head (checking the bytes
 * from `from` on): a line ended by a bare LF or CR, a control character, or a request line
 * that does not start with a method. Undefined when it may still become valid.
 */
function malformedHeadPrefix(buf: Uint8Array, from: number): string | undefined {
  for (let i = Math.max(0, from - 1); i < buf.length; i++) {
    const c = buf[i];
    if (c >= 0x20 && c !== 0x7f) continue;
    if (c === 0x0a) {
      if (i === 0 || buf[i - 1] !== 0x0d) return "line ended by a bare LF";
    } else if (c === 0x0d) {
      if (i + 1 < buf.length && buf[i + 1] !== 0x0a) return "bare CR in the request head";
    } else if (c !== 0x09) return "control character in the request head";
  }
  // The method: token characters up to the first space, after any empty lines (looking at
  // its first bytes only, so that a head arriving in many pieces is not scanned again).
  let i = 0;
  while (i + 1 < buf.length && buf[i] === 0x0d && buf[i + 1] === 0x0a) i += 2;
  const end = Math.min(buf.length, i + 64);
  for (; i < end && buf[i] !== 0x20; i++) {
    if (buf[i] === 0x0d && i + 1 === buf.length) break;
    if (!TCHAR[buf[i]]) return "malformed method";
  }
  return undefined;
}

/** Which bytes are token characters (RFC 9110 section 5.6.2). */
const TCHAR = (() => {
  const table = new Uint8Array(256);
  const chars = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
})();

/** Response framing chosen by {@link Http1Exchange.writeHead}. */
type Framing = "none" | "length" | "chunked" | "close";

/** One request and its response on an {@link Http1Connection}. */
export class Http1Exchange implements Exchange {
  readonly head: RequestHead;
  #conn: Http1Connection;
  #abort = new AbortController();
  #framing: Framing | undefined;
  #ended = false;
  /** Decided with the response head: whether the connection stays open after it. */
  #keep = false;
  #continueSent = false;
  /** @internal */
  _sink: BodySink | undefined;
  /** @internal The chunked body could not be decoded. */
  _bodyBroken = false;

  constructor(conn: Http1Connection, head: RequestHead) {
    this.#conn = conn;
    this.head = head;
  }

  /** The connection's socket. */
  get socket(): Socket {
    return this.#conn.socket;
  }

  /** Aborted when the connection closes before the response is complete. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether the response head has been written. */
  get headersSent(): boolean {
    return this.#framing !== undefined;
  }

  /**
   * Receives the request body: set it while handling the request (before returning from
   * `onRequest`). Sends `100 Continue` first when the client waits for it.
   */
  readBody(sink: BodySink): void {
    this._sink = sink;
    if (this.head.expectContinue && !this.#continueSent && !this.headersSent) {
      this.#continueSent = true;
      this.socket.write(CONTINUE);
    }
  }

  /** Asks for more body data after the sink returned false. */
  resumeBody(): void {
    this.#conn._resumeBody();
  }

  /**
   * Writes the whole response: status line, `headerLines` (`name: value\r\n` each), framing
   * and body, in one write.
   */
  respond(
    status: number,
    statusText: string,
    headerLines: string,
    body: string | Uint8Array | null,
  ): void {
    if (this.#framing !== undefined || this.#ended) return;
    const noBody = this.#noBody(status);
    let lines = headerLines;
    if (!noBody) {
      const length = body === null
        ? 0
        : typeof body === "string"
        ? Buffer.byteLength(body)
        : body.byteLength;
      lines += `content-length: ${length}\r\n`;
    }
    this.#keep = this.#keepOpen(false);
    const head = this.#statusLine(status, statusText, lines, this.#keep);
    this.#framing = noBody ? "none" : "length";
    if (noBody || body === null || (typeof body !== "string" && body.byteLength === 0)) {
      this.socket.write(head);
    } else if (typeof body === "string" && !NON_ASCII.test(head)) {
      this.socket.write(head + body);
    } else {
      const bytes = typeof body === "string" ? Buffer.from(body) : body;
      this.socket.write(Buffer.concat([Buffer.from(head, "latin1"), bytes]));
    }
    this.#end();
  }

  /**
   * Writes the response head of a streamed body. With `contentLength` the body is sent as it
   * is; otherwise chunked (or, to an HTTP/1.0 client, until the connection closes).
   */
  writeHead(status: number, statusText: string, headerLines: string, contentLength?: number) {
    if (this.#framing !== undefined || this.#ended) return;
    let lines = headerLines;
    let framing: Framing;
    if (this.#noBody(status)) framing = "none";
    else if (contentLength !== undefined) {
      framing = "length";
      lines += `content-length: ${contentLength}\r\n`;
    } else if (this.head.minorVersion === 1) {
      framing = "chunked";
      lines += "transfer-encoding: chunked\r\n";
    } else framing = "close";
    this.#framing = framing;
    this.#keep = this.#keepOpen(framing === "close");
    const head = this.#statusLine(status, statusText, lines, this.#keep);
    this.socket.write(NON_ASCII.test(head) ? Buffer.from(head, "latin1") : head);
  }

  /**
   * Writes a piece of a streamed body; resolves once the socket can take more (at once unless
   * its buffer is full), or when the connection closes.
   */
  write(chunk: Uint8Array): Promise<void> {
    if (this.#ended || this.#framing === undefined || this.#framing === "none") {
      return Promise.resolve();
    }
    if (chunk.byteLength === 0 || this.socket.destroyed) return Promise.resolve();
    const data = this.#framing === "chunked"
      ? Buffer.concat([Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), chunk, CRLF])
      : chunk;
    if (this.socket.write(data)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        resolve();
      };
      this.socket.on("drain", done);
      this.socket.on("close", done);
    });
  }

  /** Ends a streamed body. */
  end(): void {
    if (this.#ended || this.#framing === undefined) return;
    if (this.#framing === "chunked") this.socket.write(LAST_CHUNK);
    this.#end();
  }

  /** Breaks off the response (the body failed mid-stream): the client sees it incomplete. */
  destroy(): void {
    this.#ended = true;
    this.#conn.destroy();
  }

  /**
   * Writes `101 Switching Protocols` with `headerLines` and hands over the socket; undefined
   * when the connection cannot switch (a response was already written, or body bytes remain).
   */
  upgrade(headerLines: string): UpgradedConnection | undefined {
    if (this.#framing !== undefined || this.#ended) return undefined;
    const conn = this.#conn._upgrade(this, headerLines);
    if (conn) {
      this.#framing = "none";
      this.#ended = true;
    }
    return conn;
  }

  /** Nothing to do: the connection serves one exchange at a time anyway. */
  release(): void {}

  /** @internal */
  _connectionClosed(): void {
    if (!this.#ended) this.#abort.abort(new Error("client disconnected"));
  }

  #end(): void {
    this.#ended = true;
    // A body the handler did not read to its end leaves the connection unusable.
    this.#conn._finished(this, this.#keep && this.#conn._bodyComplete());
  }

  #noBody(status: number): boolean {
    return this.head.method === "HEAD" || status === 204 || status === 304 ||
      (status >= 100 && status < 200);
  }

  /** Whether the connection can serve another request after this response. */
  #keepOpen(closeDelimited: boolean): boolean {
    return this.head.keepAlive && !closeDelimited && this.#conn._bodyComplete();
  }

  #statusLine(status: number, statusText: string, lines: string, keepOpen: boolean): string {
    const reason = statusText || STATUS_CODES[status] || "Unknown";
    let connection = "";
    if (!keepOpen) connection = "connection: close\r\n";
    else if (this.head.minorVersion === 0) connection = "connection: keep-alive\r\n";
    return `HTTP/1.1 ${status} ${reason}\r\n${currentDateLine()}${lines}${connection}\r\n`;
  }
}
