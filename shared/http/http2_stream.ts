/**
 * One request stream of an HTTP/2 connection ({@link ./http2_connection.ts}) and its response:
 * the {@link Exchange} a handler sees, with the stream's flow-control windows.
 *
 * @module
 */
import type { Socket } from "node:net";
import type { BodySink, Exchange } from "./exchange.ts";
import { DEFAULT_WINDOW, Http2Error, MAX_WINDOW } from "./http2_frame.ts";
import { appendFields } from "./http2_request_head.ts";
import { currentHttpDate } from "./http_date.ts";
import type { RequestHead } from "./request_head.ts";

/** A stream's body data waiting for flow-control window beyond this makes its write() wait. */
const STREAM_HIGH_WATER = 64 * 1024;

/**
 * What a stream uses of its connection: the `@internal` members of `Http2Connection`
 * ({@link ./http2_connection.ts}), which implements this.
 */
export interface Http2StreamConnection {
  /** The connection's socket. */
  readonly socket: Socket;
  /** The largest frame the peer accepts. */
  _peerMaxFrame: number;
  /** What the peer lets us send on the connection. */
  _sendWindow: number;
  /** Request body bytes have been used (or dropped): give the connection window back. */
  _consumed(bytes: number): void;
  /** The stream wants its full window once the frames at hand are processed. */
  _wantWindow(stream: Http2Stream): void;
  /** Grants the peer `increment` more bytes on stream `id`. */
  _windowUpdate(id: number, increment: number): void;
  /** Queues a header block (HEADERS, then CONTINUATION frames when it is large). */
  _headers(id: number, fields: string[], endStream: boolean): void;
  /** Queues one DATA frame (the caller has taken the windows into account). */
  _data(id: number, data: Uint8Array, endStream: boolean): void;
  /** The stream has data waiting for window. */
  _block(stream: Http2Stream, blocked: boolean): void;
  /** The stream's write() waits until {@link _writable} and its own buffer allow. */
  _wait(stream: Http2Stream): void;
  /** Whether queued output leaves room for more. */
  _writable(): boolean;
  /** Sends RST_STREAM and forgets the stream. */
  _reset(id: number, code: number): void;
  /** The stream is done (both sides ended, or reset). */
  _streamClosed(stream: Http2Stream): void;
  /** A closed stream's handler has finished: its slot is free. */
  _slotFreed(): void;
}

/** One request stream of an HTTP/2 connection and its response. */
export class Http2Stream implements Exchange {
  readonly id: number;
  readonly head: RequestHead;
  #conn: Http2StreamConnection;
  #abort = new AbortController();
  #headersSent = false;
  #localClosed = false;
  #done = false;

  // Request body.
  /** @internal The client ended its side (END_STREAM or RST). */
  _remoteClosed = false;
  /** @internal The server is done with the stream (see {@link release}). */
  _released = false;
  #sink: BodySink | undefined;
  #paused = false;
  #pendingIn: Uint8Array[] = [];
  #pendingInBytes = 0;
  #endPending = false;
  #received = 0;
  #recvWindow: number;
  #recvWindowSize: number;
  #windowOpened = false;
  #recvUnacked = 0;

  // Response body.
  #sendWindow: number;
  #pendingOut: Uint8Array[] = [];
  #pendingOutBytes = 0;
  #endAfterPending = false;
  /** Waiting for flow-control window (listed in the connection's blocked set). */
  #blocked = false;
  #writer: (() => void) | undefined;

  constructor(
    conn: Http2StreamConnection,
    id: number,
    head: RequestHead,
    sendWindow: number,
    recvWindow: number,
  ) {
    this.#conn = conn;
    this.id = id;
    this.head = head;
    this.#sendWindow = sendWindow;
    this.#recvWindow = Math.min(recvWindow, DEFAULT_WINDOW);
    this.#recvWindowSize = recvWindow;
  }

  /** The connection's socket. */
  get socket(): Socket {
    return this.#conn.socket;
  }

  /** Aborted when the client resets the stream or the connection closes before the response ends. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether the response head has been written. */
  get headersSent(): boolean {
    return this.#headersSent;
  }

  /**
   * Receives the request body; the stream's window opens to its full size once the frames at
   * hand are processed, unless the body is complete by then (see {@link _openWindow}).
   */
  readBody(sink: BodySink): void {
    this.#sink = sink;
    if (!this._remoteClosed && this.#recvWindowSize > DEFAULT_WINDOW && !this.#windowOpened) {
      this.#windowOpened = true;
      this.#conn._wantWindow(this);
    }
    if (this.#pendingIn.length > 0 || this.#endPending) queueMicrotask(() => this.resumeBody());
  }

  /**
   * @internal Grants the rest of the stream's window to a body still arriving. Sent at once,
   * the WINDOW_UPDATE also acknowledges the request's HEADERS: a client whose socket holds
   * small writes back (Nagle's algorithm; Deno's fetch is one) sends the body then, instead of
   * 40 ms later when our delayed ACK would have gone out.
   */
  _openWindow(): void {
    if (this._remoteClosed || this.#done) return;
    const grant = this.#recvWindowSize - DEFAULT_WINDOW;
    this.#recvWindow += grant;
    this.#conn._windowUpdate(this.id, grant);
  }

  /** Asks for more body data after the sink returned false. */
  resumeBody(): void {
    this.#paused = false;
    const sink = this.#sink;
    if (!sink || this.#done) return;
    while (this.#pendingIn.length > 0 && !this.#paused) {
      const chunk = this.#pendingIn.shift()!;
      this.#pendingInBytes -= chunk.length;
      if (!sink.data(chunk)) this.#paused = true;
      this.#credit(chunk.length);
    }
    if (this.#pendingIn.length === 0 && this.#endPending) {
      this.#endPending = false;
      sink.end();
    }
  }

  /** Writes the whole response: HEADERS, then the body in DATA frames. */
  respond(
    status: number,
    _statusText: string,
    headerLines: string,
    body: string | Uint8Array | null,
  ): void {
    if (this.#headersSent || this.#done) return;
    const noBody = this.#noBody(status);
    const bytes = noBody || body === null
      ? undefined
      : typeof body === "string"
      ? Buffer.from(body)
      : body;
    const empty = !bytes || bytes.length === 0;
    this.#sendHead(status, headerLines, noBody ? undefined : bytes?.length ?? 0, empty);
    if (!empty) this.#send(bytes, true);
  }

  /** Writes the response head of a streamed body. */
  writeHead(status: number, _statusText: string, headerLines: string, contentLength?: number) {
    if (this.#headersSent || this.#done) return;
    const noBody = this.#noBody(status);
    this.#sendHead(status, headerLines, noBody ? undefined : contentLength, noBody);
  }

  /** Writes a piece of a streamed body; resolves once more can be written, or the stream ended. */
  write(chunk: Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      if (this.push(chunk, resolve)) resolve();
    });
  }

  /**
   * Writes a piece of a streamed body at once (a push body, {@link ./push_body.ts}): false when
   * the stream or connection is full, and `onDrain` is called once it can take more.
   */
  push(chunk: Uint8Array, onDrain: () => void): boolean {
    if (!this.#headersSent || this.#localClosed || this.#done || chunk.length === 0) return true;
    this.#send(chunk, false);
    if (this.#done || (this._ready() && this.#conn._writable())) return true;
    this.#writer = onDrain;
    this.#conn._wait(this);
    return false;
  }

  /** Ends a streamed body. */
  end(): void {
    if (!this.#headersSent || this.#localClosed || this.#done) return;
    if (this.#pendingOut.length > 0) {
      this.#endAfterPending = true;
      return;
    }
    this.#conn._data(this.id, EMPTY, true);
    this.#localEnd();
  }

  /** Breaks off the response: the client sees the stream reset. */
  destroy(): void {
    if (this.#done) return;
    this.#conn._reset(this.id, Http2Error.INTERNAL_ERROR);
  }

  /** The server is done with the stream: once it is closed too, it no longer counts. */
  release(): void {
    if (this._released) return;
    this._released = true;
    if (this.#done) this.#conn._slotFreed();
  }

  // ---- used by the connection ----

  /** @internal Body data of the request (`frameLength` counts padding too). */
  _receive(data: Uint8Array, frameLength: number, endStream: boolean): void {
    if (frameLength > this.#recvWindow) {
      this.#conn._consumed(frameLength);
      this.#conn._reset(this.id, Http2Error.FLOW_CONTROL_ERROR);
      return;
    }
    this.#recvWindow -= frameLength;
    if (frameLength > data.length) this.#credit(frameLength - data.length);
    this.#received += data.length;
    const body = this.head.body;
    if (body.kind === "length" && this.#received > body.length) {
      this.#conn._reset(this.id, Http2Error.PROTOCOL_ERROR);
      return;
    }
    if (data.length > 0) {
      if (this.#sink && !this.#paused && this.#pendingIn.length === 0) {
        if (!this.#sink.data(data)) this.#paused = true;
        this.#credit(data.length);
      } else {
        this.#pendingIn.push(Uint8Array.from(data));
        this.#pendingInBytes += data.length;
      }
    }
    if (endStream) this._remoteEnd();
  }

  /** @internal The client ended its side of the stream. */
  _remoteEnd(): void {
    if (this._remoteClosed) return;
    this._remoteClosed = true;
    const body = this.head.body;
    if (body.kind === "length" && this.#received !== body.length) {
      this.#sink?.error(new Error("request body shorter than its content-length"));
      this.#conn._reset(this.id, Http2Error.PROTOCOL_ERROR);
      return;
    }
    if (this.#pendingIn.length > 0) this.#endPending = true;
    else this._sinkEnd();
    if (this.#localClosed) this.#finish();
  }

  /** @internal Tells the sink the body is complete (a request without one, or all delivered). */
  _sinkEnd(): void {
    if (this.#pendingIn.length > 0) {
      this.#endPending = true;
      return;
    }
    const sink = this.#sink;
    if (sink) sink.end();
    else this.#endPending = true;
  }

  /** @internal Changes the send window; false when it would overflow. */
  _adjustSendWindow(delta: number): boolean {
    if (this.#sendWindow + delta > MAX_WINDOW) return false;
    this.#sendWindow += delta;
    return true;
  }

  /** @internal Whether this stream's own queue leaves room for more. */
  _ready(): boolean {
    return this.#pendingOutBytes < STREAM_HIGH_WATER;
  }

  /** @internal Resolves a waiting write(). */
  _wakeWriter(): void {
    const w = this.#writer;
    this.#writer = undefined;
    w?.();
  }

  /** @internal Sends what the windows allow of the queued body. */
  _pump(): void {
    const conn = this.#conn;
    while (this.#pendingOut.length > 0) {
      const allowed = Math.min(this.#sendWindow, conn._sendWindow, conn._peerMaxFrame);
      if (allowed <= 0) {
        this.#blocked = true;
        conn._block(this, true);
        return;
      }
      const chunk = this.#pendingOut[0];
      const n = Math.min(chunk.length, allowed);
      const piece = n === chunk.length ? chunk : chunk.subarray(0, n);
      if (n === chunk.length) this.#pendingOut.shift();
      else this.#pendingOut[0] = chunk.subarray(n);
      this.#pendingOutBytes -= n;
      this.#sendWindow -= n;
      conn._sendWindow -= n;
      const last = this.#pendingOut.length === 0 && this.#endAfterPending;
      conn._data(this.id, piece, last);
      if (last) {
        this.#endAfterPending = false;
        this.#localEnd();
      }
    }
    if (this.#blocked) {
      this.#blocked = false;
      conn._block(this, false);
    }
  }

  /** @internal Ends the stream without completing it (reset by either side, connection gone). */
  _reset(err: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.#pendingOut = [];
    this.#pendingOutBytes = 0;
    // Body data nobody will read still counts against the connection's window.
    if (this.#pendingInBytes > 0) this.#conn._consumed(this.#pendingInBytes);
    this.#pendingIn = [];
    this.#pendingInBytes = 0;
    if (!this._remoteClosed) {
      this._remoteClosed = true;
      this.#sink?.error(err);
    }
    if (!this.#localClosed) this.#abort.abort(err);
    this._wakeWriter();
    this.#conn._streamClosed(this);
  }

  /** Queues the HEADERS of the response; with `endStream` the response has no body. */
  #sendHead(
    status: number,
    headerLines: string,
    contentLength: number | undefined,
    endStream: boolean,
  ): void {
    const fields = [":status", String(status)];
    appendFields(headerLines, fields);
    fields.push("date", currentHttpDate());
    if (contentLength !== undefined) fields.push("content-length", String(contentLength));
    this.#headersSent = true;
    this.#conn._headers(this.id, fields, endStream);
    if (endStream) this.#localEnd();
  }

  #send(bytes: Uint8Array, end: boolean): void {
    this.#pendingOut.push(bytes);
    this.#pendingOutBytes += bytes.length;
    if (end) this.#endAfterPending = true;
    this._pump();
  }

  /** Gives back receive window for body bytes the sink has taken. */
  #credit(bytes: number): void {
    this.#conn._consumed(bytes);
    if (this._remoteClosed) return;
    this.#recvUnacked += bytes;
    if (this.#recvUnacked >= this.#recvWindowSize / 2) {
      this.#conn._windowUpdate(this.id, this.#recvUnacked);
      this.#recvWindow += this.#recvUnacked;
      this.#recvUnacked = 0;
    }
  }

  /** Our side is complete (END_STREAM queued). */
  #localEnd(): void {
    if (this.#localClosed) return;
    this.#localClosed = true;
    if (this._remoteClosed) {
      this.#finish();
      return;
    }
    // The response is complete before the request body: the client need not send the rest.
    this.#conn._reset(this.id, Http2Error.NO_ERROR);
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this._wakeWriter();
    this.#conn._streamClosed(this);
  }

  #noBody(status: number): boolean {
    return this.head.method === "HEAD" || status === 204 || status === 304 ||
      (status >= 100 && status < 200);
  }
}

const EMPTY = new Uint8Array(0);
