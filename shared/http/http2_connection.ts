/**
 * One HTTP/2 connection on the server side (RFC 9113), over a TLS socket whose ALPN chose
 * `h2`. It reads frames, decodes header blocks (HPACK, {@link ./hpack.ts}), hands each request
 * stream to the server as an {@link Http2Stream} (the same {@link Exchange} interface an
 * HTTP/1.1 exchange has), and writes responses as HEADERS and DATA frames within the peer's
 * flow-control windows.
 *
 * Why the server speaks it: Go clients (kubectl, client-go) negotiate HTTP/2 when offered and
 * then multiplex every request and watch of a process over one connection, as they do against
 * kube-apiserver. A watch event that reaches many watchers on one connection leaves in one
 * socket write (frames queued during a turn of the event loop are written together), instead
 * of one TLS record and system call per watcher.
 *
 * What it does not do: server push (disabled in our SETTINGS), priorities (PRIORITY frames and
 * fields are read and ignored, as RFC 9113 allows), CONNECT, and HTTP/2 over cleartext.
 *
 * Its parts live beside it in `http2_*.ts`: frame layer, header blocks, SETTINGS checks, reset
 * allowance, output queue, request heads and streams.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { encodeHeaders } from "./hpack.ts";
import {
  ACK,
  ConnectionError,
  CONTINUATION,
  DATA,
  DEFAULT_WINDOW,
  END_HEADERS,
  END_STREAM,
  GOAWAY,
  HEADERS,
  Http2Error,
  MAX_FRAME_SIZE,
  MAX_WINDOW,
  PADDED,
  PING,
  PREFACE,
  PRIORITY,
  PUSH_PROMISE,
  RST_STREAM,
  SETTINGS,
  SETTINGS_ENABLE_PUSH,
  SETTINGS_INITIAL_WINDOW_SIZE,
  SETTINGS_MAX_CONCURRENT_STREAMS,
  SETTINGS_MAX_FRAME_SIZE,
  SETTINGS_MAX_HEADER_LIST_SIZE,
  StreamError,
  WINDOW_UPDATE,
} from "./http2_frame.ts";
import { FrameWriter } from "./http2_frame_writer.ts";
import { type HeaderBlock, HeaderBlockReader } from "./http2_header_block.ts";
import { requestHeadOf, TOO_LARGE_BODY, TOO_LARGE_HEAD } from "./http2_request_head.ts";
import { MAX_RESET_BURST, ResetAllowance, RESETS_PER_SECOND } from "./http2_reset_allowance.ts";
import { checkSetting, checkSettingsFrame } from "./http2_settings.ts";
import { Http2Stream, type Http2StreamConnection } from "./http2_stream.ts";
import type { RequestHead } from "./request_head.ts";

/** Options of {@link Http2Connection}. */
export interface Http2ConnectionOptions {
  /** Largest header list of a request (SETTINGS_MAX_HEADER_LIST_SIZE), in bytes. */
  maxHeadBytes: number;
  /** Most streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxConcurrentStreams: number;
  /** Called for each request stream, as soon as its header block has arrived. */
  onRequest: (stream: Http2Stream) => void;
  /** Clock for the idle and preface timeouts (ms). */
  now: () => number;
  /** Receive window of each stream (bytes of request body buffered per stream); default 256 KiB. */
  streamWindow?: number;
  /** Receive window of the connection; default 4 MiB. */
  connectionWindow?: number;
  /**
   * Streams the client may cancel (reset before their response is complete) or open beyond
   * the concurrency limit in a burst before the connection is closed with ENHANCE_YOUR_CALM;
   * default {@link MAX_RESET_BURST}.
   */
  maxResetBurst?: number;
  /** How fast that allowance refills, per second; default {@link RESETS_PER_SECOND}. */
  resetsPerSecond?: number;
}

/** See the module documentation. */
export class Http2Connection implements Http2StreamConnection {
  readonly socket: Socket;
  #opts: Http2ConnectionOptions;
  #streamWindow: number;
  #connectionWindow: number;
  #buf: Buffer | undefined;
  #prefaceDone = false;
  #settingsReceived = false;
  #streams = new Map<number, Http2Stream>();
  #lastStreamId = 0;
  #blocks: HeaderBlockReader;
  #goawaySent = false;
  #peerGoaway = false;
  #closed = false;
  /** A connection error was sent: nothing more is read. */
  #fatal = false;
  /** When the connection last became idle (or was opened). */
  #since: number;
  /**
   * Streams that count against the concurrency limit: open ones, and closed ones whose
   * handler has not finished (a stream the client reset still costs until then).
   */
  #occupied = 0;
  /** What is left of the allowance for cancelled and refused streams. */
  #resets: ResetAllowance;

  // Peer settings.
  /** @internal */
  _peerMaxFrame = MAX_FRAME_SIZE;
  #peerInitialWindow = DEFAULT_WINDOW;

  // Flow control.
  /** @internal What the peer lets us send on the connection. */
  _sendWindow = DEFAULT_WINDOW;
  #recvWindow: number;
  #recvUnacked = 0;
  /** Streams whose handler reads the body, to grant their window after this read. */
  #windowWanted: Http2Stream[] = [];
  /** Streams with body data waiting for window. */
  #blocked = new Set<Http2Stream>();
  /** Streams whose write() waits for room. */
  #waiting = new Set<Http2Stream>();

  // Output.
  #output: FrameWriter;
  #flushScheduled = false;

  constructor(socket: Socket, opts: Http2ConnectionOptions) {
    this.socket = socket;
    this.#opts = opts;
    this.#blocks = new HeaderBlockReader(opts.maxHeadBytes);
    this.#output = new FrameWriter(socket, () => this.#wake());
    this.#streamWindow = opts.streamWindow ?? 256 * 1024;
    this.#connectionWindow = opts.connectionWindow ?? 4 * 1024 * 1024;
    this.#recvWindow = this.#connectionWindow;
    this.#since = opts.now();
    this.#resets = new ResetAllowance(
      opts.maxResetBurst ?? MAX_RESET_BURST,
      opts.resetsPerSecond ?? RESETS_PER_SECOND,
      opts.now,
      this.#since,
    );
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("close", () => this.#onClose());
    socket.on("error", () => socket.destroy());
    socket.on("drain", () => this.#wake());

    // Streams start with the protocol's default window; a stream whose body the handler reads
    // is granted the rest of its window then (see Http2Stream.readBody).
    this.#output.settings([
      [SETTINGS_MAX_CONCURRENT_STREAMS, opts.maxConcurrentStreams],
      [SETTINGS_MAX_HEADER_LIST_SIZE, opts.maxHeadBytes],
      [SETTINGS_ENABLE_PUSH, 0],
    ]);
    if (this.#connectionWindow > DEFAULT_WINDOW) {
      this.#output.windowUpdate(0, this.#connectionWindow - DEFAULT_WINDOW);
    }
    this.#flush();
  }

  /**
   * What the connection is doing, for timeouts: `head` (the client's preface has not arrived,
   * since the connection opened), `idle` (no open stream, since `since`), `busy`, `closed`.
   */
  get state(): { kind: "idle" | "head" | "busy" | "closed"; since: number } {
    if (this.#closed) return { kind: "closed", since: this.#since };
    if (!this.#settingsReceived) return { kind: "head", since: this.#since };
    if (this.#streams.size === 0) return { kind: "idle", since: this.#since };
    return { kind: "busy", since: this.#since };
  }

  /**
   * Ends the connection (timeouts): GOAWAY, then close once it is written. Streams still open
   * are reset.
   */
  destroy(): void {
    if (this.#closed) return;
    this.#goaway(Http2Error.NO_ERROR, "");
    for (const stream of [...this.#streams.values()]) {
      stream._reset(new Error("connection closed by the server"));
    }
    this.#endSocket();
  }

  // ---- input ----

  #onData(chunk: Buffer): void {
    if (this.#closed || this.#fatal) return;
    this.#buf = this.#buf?.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    try {
      this.#process();
    } catch (err) {
      if (err instanceof ConnectionError) this.#fail(err.code, err.message);
      else this.#fail(Http2Error.INTERNAL_ERROR, "internal error");
    }
    if (this.#windowWanted.length > 0) {
      const wanted = this.#windowWanted;
      this.#windowWanted = [];
      for (const stream of wanted) stream._openWindow();
    }
    this.#flush();
  }

  #process(): void {
    if (!this.#prefaceDone) {
      const buf = this.#buf!;
      const n = Math.min(buf.length, PREFACE.length);
      if (!buf.subarray(0, n).equals(PREFACE.subarray(0, n))) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "invalid connection preface");
      }
      if (buf.length < PREFACE.length) return;
      this.#buf = buf.subarray(PREFACE.length);
      this.#prefaceDone = true;
    }
    while (!this.#closed && !this.#fatal) {
      const buf = this.#buf;
      if (!buf || buf.length < 9) return;
      const length = (buf[0] << 16) | (buf[1] << 8) | buf[2];
      if (length > MAX_FRAME_SIZE) {
        throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "frame larger than allowed");
      }
      if (buf.length < 9 + length) return;
      const type = buf[3];
      const flags = buf[4];
      const id = buf.readUInt32BE(5) & 0x7fffffff;
      const payload = buf.subarray(9, 9 + length);
      this.#buf = buf.subarray(9 + length);
      this.#onFrame(type, flags, id, payload);
    }
  }

  #onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    if (!this.#settingsReceived && (type !== SETTINGS || (flags & ACK))) {
      throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "expected SETTINGS first");
    }
    const pending = this.#blocks.pending;
    if (pending && (type !== CONTINUATION || id !== pending.id)) {
      throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "expected CONTINUATION");
    }
    switch (type) {
      case DATA:
        return this.#onDataFrame(flags, id, payload);
      case HEADERS: {
        const block = this.#blocks.headers(flags, id, payload);
        if (block) this.#endHeaders(block);
        return;
      }
      case PRIORITY:
        if (id === 0) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "PRIORITY on stream 0");
        if (payload.length !== 5) this.#resetStream(id, Http2Error.FRAME_SIZE_ERROR);
        return;
      case RST_STREAM:
        return this.#onRstStream(id, payload);
      case SETTINGS:
        return this.#onSettings(flags, id, payload);
      case PUSH_PROMISE:
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "clients do not push");
      case PING:
        if (id !== 0) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "PING on a stream");
        if (payload.length !== 8) {
          throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "PING must be 8 bytes");
        }
        if (!(flags & ACK)) this.#output.frame(PING, ACK, 0, Buffer.from(payload));
        return;
      case GOAWAY:
        if (id !== 0) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "GOAWAY on a stream");
        this.#peerGoaway = true;
        if (this.#streams.size === 0) this.#endSocket();
        return;
      case WINDOW_UPDATE:
        return this.#onWindowUpdate(id, payload);
      case CONTINUATION: {
        const block = this.#blocks.continuation(flags, id, payload);
        if (block) this.#endHeaders(block);
        return;
      }
      default:
        // Unknown frame types are ignored (RFC 9113 section 4.1).
        return;
    }
  }

  #onSettings(flags: number, id: number, payload: Buffer): void {
    if (!checkSettingsFrame(flags, id, payload)) return;
    this.#settingsReceived = true;
    for (let i = 0; i < payload.length; i += 6) {
      const key = payload.readUInt16BE(i);
      const value = payload.readUInt32BE(i + 2);
      checkSetting(key, value);
      if (key === SETTINGS_INITIAL_WINDOW_SIZE) this.#setPeerInitialWindow(value);
      else if (key === SETTINGS_MAX_FRAME_SIZE) this._peerMaxFrame = value;
    }
    this.#output.frame(SETTINGS, ACK, 0);
    this.#pumpBlocked();
  }

  /** Applies the peer's SETTINGS_INITIAL_WINDOW_SIZE to the open streams (RFC 9113 section 6.9.2). */
  #setPeerInitialWindow(value: number): void {
    const delta = value - this.#peerInitialWindow;
    this.#peerInitialWindow = value;
    for (const stream of this.#streams.values()) {
      if (!stream._adjustSendWindow(delta)) {
        throw new ConnectionError(Http2Error.FLOW_CONTROL_ERROR, "window overflow");
      }
    }
  }

  #onWindowUpdate(id: number, payload: Buffer): void {
    if (payload.length !== 4) {
      throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "WINDOW_UPDATE must be 4 bytes");
    }
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (id === 0) {
      if (increment === 0) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
      }
      if (this._sendWindow + increment > MAX_WINDOW) {
        throw new ConnectionError(Http2Error.FLOW_CONTROL_ERROR, "connection window overflow");
      }
      this._sendWindow += increment;
      this.#pumpBlocked();
      return;
    }
    const stream = this.#streams.get(id);
    if (!stream) {
      if (id > this.#lastStreamId) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "WINDOW_UPDATE on an idle stream");
      }
      return;
    }
    if (increment === 0) return this.#resetStream(id, Http2Error.PROTOCOL_ERROR);
    if (!stream._adjustSendWindow(increment)) {
      return this.#resetStream(id, Http2Error.FLOW_CONTROL_ERROR);
    }
    stream._pump();
    this.#wake();
  }

  #onRstStream(id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "RST_STREAM on stream 0");
    if (payload.length !== 4) {
      throw new ConnectionError(Http2Error.FRAME_SIZE_ERROR, "RST_STREAM must be 4 bytes");
    }
    if (id > this.#lastStreamId) {
      throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "RST_STREAM on an idle stream");
    }
    const stream = this.#streams.get(id);
    if (!stream) return;
    this.#resets.charge();
    stream._reset(new Error("the client reset the stream"));
  }

  #endHeaders(block: HeaderBlock): void {
    // Every block is decoded, even one that is then refused: HPACK state is per connection.
    const fields = this.#blocks.decode(block);
    const id = block.id;
    if (id <= this.#lastStreamId) {
      const stream = this.#streams.get(id);
      if (stream && !stream._remoteClosed) {
        // Trailers: they end the request; their fields are not used.
        if (!block.endStream) return this.#resetStream(id, Http2Error.PROTOCOL_ERROR);
        stream._remoteEnd();
        return;
      }
      // A stream we already closed or reset.
      return;
    }
    this.#lastStreamId = id;
    if (this.#goawaySent || this.#peerGoaway) return;
    if (this.#occupied >= this.#opts.maxConcurrentStreams) {
      this.#resets.charge();
      return this.#resetStream(id, Http2Error.REFUSED_STREAM);
    }
    let head: RequestHead;
    try {
      head = fields === undefined ? TOO_LARGE_HEAD : requestHeadOf(fields, block.endStream);
    } catch (err) {
      if (err instanceof StreamError) return this.#resetStream(id, err.code);
      throw err;
    }
    const stream = new Http2Stream(this, id, head, this.#peerInitialWindow, this.#streamWindow);
    this.#streams.set(id, stream);
    this.#occupied++;
    if (block.endStream) stream._remoteClosed = true;
    if (fields === undefined) {
      stream.release();
      stream.respond(431, "", "content-type: application/json\r\n", TOO_LARGE_BODY);
      return;
    }
    this.#opts.onRequest(stream);
    if (block.endStream) stream._sinkEnd();
  }

  #onDataFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "DATA on stream 0");
    const length = payload.length;
    if (length > this.#recvWindow) {
      throw new ConnectionError(Http2Error.FLOW_CONTROL_ERROR, "connection window exceeded");
    }
    this.#recvWindow -= length;
    let data: Uint8Array = payload;
    if (flags & PADDED) {
      if (length < 1 || data[0] >= length) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "padding too long");
      }
      data = data.subarray(1, length - data[0]);
    }
    const stream = this.#streams.get(id);
    if (!stream || stream._remoteClosed) {
      this._consumed(length);
      if (id > this.#lastStreamId) {
        throw new ConnectionError(Http2Error.PROTOCOL_ERROR, "DATA on an idle stream");
      }
      if (stream) this.#resetStream(id, Http2Error.STREAM_CLOSED);
      return;
    }
    stream._receive(data, length, (flags & END_STREAM) !== 0);
  }

  // ---- used by streams ----

  /** @internal Request body bytes have been used (or dropped): give the connection window back. */
  _consumed(bytes: number): void {
    this.#recvUnacked += bytes;
    if (this.#recvUnacked >= this.#connectionWindow / 2) {
      this.#output.windowUpdate(0, this.#recvUnacked);
      this.#recvWindow += this.#recvUnacked;
      this.#recvUnacked = 0;
    }
  }

  /** @internal The stream wants its full window once the frames at hand are processed. */
  _wantWindow(stream: Http2Stream): void {
    this.#windowWanted.push(stream);
  }

  /** @internal Grants the peer `increment` more bytes on stream `id`. */
  _windowUpdate(id: number, increment: number): void {
    this.#output.windowUpdate(id, increment);
    this.#scheduleFlush();
  }

  /** @internal Queues a header block (HEADERS, then CONTINUATION frames when it is large). */
  _headers(id: number, fields: string[], endStream: boolean): void {
    const block = encodeHeaders(fields);
    const max = this._peerMaxFrame;
    const flags = endStream ? END_STREAM : 0;
    if (block.length <= max) {
      this.#output.frame(HEADERS, flags | END_HEADERS, id, block);
    } else {
      this.#output.frame(HEADERS, flags, id, block.subarray(0, max));
      for (let at = max; at < block.length; at += max) {
        const end = Math.min(block.length, at + max);
        this.#output.frame(
          CONTINUATION,
          end === block.length ? END_HEADERS : 0,
          id,
          block.subarray(at, end),
        );
      }
    }
    this.#scheduleFlush();
  }

  /** @internal Queues one DATA frame (the caller has taken the windows into account). */
  _data(id: number, data: Uint8Array, endStream: boolean): void {
    this.#output.frame(DATA, endStream ? END_STREAM : 0, id, data);
    this.#scheduleFlush();
  }

  /** @internal The stream has data waiting for window. */
  _block(stream: Http2Stream, blocked: boolean): void {
    if (blocked) this.#blocked.add(stream);
    else this.#blocked.delete(stream);
  }

  /** @internal The stream's write() waits until {@link _writable} and its own buffer allow. */
  _wait(stream: Http2Stream): void {
    this.#waiting.add(stream);
  }

  /** @internal Whether queued output leaves room for more. */
  _writable(): boolean {
    return this.#output.writable();
  }

  /** @internal Sends RST_STREAM and forgets the stream. */
  _reset(id: number, code: number): void {
    this.#resetStream(id, code);
    this.#scheduleFlush();
  }

  /** @internal The stream is done (both sides ended, or reset). */
  _streamClosed(stream: Http2Stream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    if (stream._released) this.#occupied--;
    this.#blocked.delete(stream);
    this.#waiting.delete(stream);
    if (this.#streams.size === 0) {
      this.#since = this.#opts.now();
      if (this.#peerGoaway || this.#goawaySent) this.#endSocket();
    }
  }

  /** @internal A closed stream's handler has finished: its slot is free. */
  _slotFreed(): void {
    this.#occupied--;
  }

  #resetStream(id: number, code: number): void {
    const stream = this.#streams.get(id);
    if (stream) stream._reset(new Error(`stream reset (error ${code})`));
    this.#output.rstStream(id, code);
  }

  #pumpBlocked(): void {
    for (const stream of [...this.#blocked]) {
      if (this._sendWindow <= 0) break;
      stream._pump();
    }
    this.#wake();
  }

  /**
   * Resumes the writers of streams that have room again, lowest stream first and only while
   * the connection has room: when the client cannot take every stream's body, the oldest
   * streams keep up and the newest fall behind (a watch ends when its own buffer overflows),
   * instead of every stream lagging alike until all of them overflow together.
   */
  #wake(): void {
    if (this.#waiting.size === 0 || !this._writable()) return;
    const ready = [...this.#waiting].filter((s) => s._ready());
    if (ready.length > 1) ready.sort((a, b) => a.id - b.id);
    for (const stream of ready) {
      if (!this._writable()) break;
      this.#waiting.delete(stream);
      stream._wakeWriter();
    }
  }

  /**
   * Frames queued during one turn of the event loop are written together: a watch event fanned
   * out to many streams of this connection leaves in one write.
   */
  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#closed) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#closed || !this.#output.write()) return;
    this.#wake();
  }

  /** A connection error: GOAWAY, then close once it is written. */
  #fail(code: number, message: string): void {
    this.#fatal = true;
    this.#goaway(code, message);
    this.#flush();
    for (const stream of [...this.#streams.values()]) {
      stream._reset(new Error(`connection error: ${message}`));
    }
    this.#endSocket();
  }

  #goaway(code: number, message: string): void {
    if (this.#goawaySent || this.#closed) return;
    this.#goawaySent = true;
    this.#output.goaway(this.#lastStreamId, code, message);
  }

  #endSocket(): void {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    this.#output.close();
    this.socket.end();
  }

  #onClose(): void {
    this.#closed = true;
    this.#output.close();
    this.#buf = undefined;
    for (const stream of [...this.#streams.values()]) {
      stream._reset(new Error("client disconnected"));
    }
    this.#streams.clear();
  }
}
