/**
 * The server side of a SPDY/3.1 session as Kubernetes' streaming protocols use it (the
 * client is moby/spdystream): the client opens streams with SYN_STREAM (its headers name the
 * stream's role), the server answers SYN_REPLY and both send data frames until each half is
 * ended with FIN. Header blocks are zlib-compressed with the SPDY dictionary, one compression
 * context per direction for the whole session. PINGs are answered; flow-control frames are
 * accepted and not enforced, as the client does not enforce them either.
 *
 * The bytes travel over any {@link ByteTransport}: an upgraded socket, or a WebSocket
 * carrying SPDY (kubectl's tunneled port-forward).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import zlib from "node:zlib";
import { spdyDictionary } from "./spdy_dictionary.ts";
import {
  controlFrame,
  dataFrame,
  decodeHeaderBlock,
  encodeHeaderBlock,
  FLAG_FIN,
  SPDY_TYPE,
  type SpdyFrame,
  SpdyFrameParser,
  wordAt,
  words,
} from "./spdy_frame.ts";

/** Where a session's bytes go. */
export interface ByteTransport {
  /** Sends bytes; resolves once more can be sent. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the transport. */
  close(): void;
}

/** One stream of a session. */
export class SpdyStream {
  #data: ((d: Uint8Array) => void) | undefined;
  #end: (() => void) | undefined;
  #queued: Uint8Array[] = [];
  #remoteEnded = false;
  #localEnded = false;

  constructor(
    readonly id: number,
    readonly headers: Map<string, string[]>,
    readonly session: SpdySession,
  ) {}

  /** The first value of a header. */
  header(name: string): string | undefined {
    return this.headers.get(name)?.[0];
  }

  /** Delivers what the client sends on the stream, and its end. */
  read(data: (d: Uint8Array) => void, end: () => void): void {
    this.#data = data;
    this.#end = end;
    for (const d of this.#queued.splice(0)) data(d);
    if (this.#remoteEnded) end();
  }

  /** Sends bytes on the stream. */
  write(data: Uint8Array): Promise<void> {
    if (this.#localEnded || data.length === 0) return Promise.resolve();
    return this.session._send(() => dataFrame(this.id, 0, data));
  }

  /** Ends our half of the stream (FIN). */
  end(): Promise<void> {
    if (this.#localEnded) return Promise.resolve();
    this.#localEnded = true;
    return this.session._send(() => dataFrame(this.id, FLAG_FIN, new Uint8Array(0)));
  }

  /** @internal */
  _received(data: Uint8Array, fin: boolean): void {
    if (this.#remoteEnded) return;
    if (data.length) {
      if (this.#data) this.#data(data);
      else this.#queued.push(data);
    }
    if (fin) this._remoteEnd();
  }

  /** @internal The client ended or reset the stream. */
  _remoteEnd(): void {
    if (this.#remoteEnded) return;
    this.#remoteEnded = true;
    this.#end?.();
  }
}

/** See the module documentation. */
export class SpdySession {
  readonly #transport: ByteTransport;
  readonly #onStream: (s: SpdyStream) => void;
  readonly #parser = new SpdyFrameParser();
  readonly #streams = new Map<number, SpdyStream>();
  readonly #inflate: zlib.Inflate;
  readonly #deflate: zlib.Deflate;
  #inbound: Promise<void> = Promise.resolve();
  #outbound: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #closedHandlers: (() => void)[] = [];

  constructor(transport: ByteTransport, onStream: (s: SpdyStream) => void) {
    this.#transport = transport;
    this.#onStream = onStream;
    const dictionary = spdyDictionary();
    this.#inflate = zlib.createInflate({ dictionary });
    this.#deflate = zlib.createDeflate({ dictionary });
    this.#inflate.on("error", () => this.close());
    this.#deflate.on("error", () => this.close());
  }

  /** Whether the session is closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `f` once the session closes. */
  onClose(f: () => void): void {
    if (this.#closed) f();
    else this.#closedHandlers.push(f);
  }

  /** Feeds bytes received from the transport. */
  receive(bytes: Uint8Array): void {
    if (this.#closed) return;
    let frames: SpdyFrame[];
    try {
      frames = this.#parser.push(bytes);
    } catch {
      this.close();
      return;
    }
    for (const f of frames) {
      this.#inbound = this.#inbound.then(() => this.#handle(f)).catch(() => this.close());
    }
  }

  /** Sends GOAWAY after what is queued, then ends the transport. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#outbound.catch(() => {});
    await this.#transport.write(controlFrame(SPDY_TYPE.goAway, 0, words(0, 0))).catch(() => {});
    this.transportClosed();
    this.#transport.close();
  }

  /** The transport closed: every stream ends. */
  transportClosed(): void {
    this.#closed = true;
    for (const s of this.#streams.values()) s._remoteEnd();
    this.#streams.clear();
    this.#inflate.close();
    this.#deflate.close();
    for (const f of this.#closedHandlers.splice(0)) f();
  }

  /** @internal Queues a frame (built when its turn comes) for the transport. */
  _send(frame: () => Uint8Array | Promise<Uint8Array>): Promise<void> {
    const next = this.#outbound.then(async () => {
      if (this.#closed) return;
      await this.#transport.write(await frame());
    });
    this.#outbound = next.catch(() => {});
    return next;
  }

  async #handle(f: SpdyFrame): Promise<void> {
    if (!f.control) {
      this.#streams.get(f.streamId)?._received(f.data, (f.flags & FLAG_FIN) !== 0);
      return;
    }
    switch (f.type) {
      case SPDY_TYPE.synStream:
        return await this.#synStream(f.data, f.flags);
      case SPDY_TYPE.headers:
        // Decompressed to keep the compression context in step; not used.
        await this.#inflateBlock(f.data.subarray(4));
        return;
      case SPDY_TYPE.rstStream: {
        const id = wordAt(f.data, 0) & 0x7fffffff;
        this.#streams.get(id)?._remoteEnd();
        this.#streams.delete(id);
        return;
      }
      case SPDY_TYPE.ping:
        await this._send(() => controlFrame(SPDY_TYPE.ping, 0, f.data));
        return;
      case SPDY_TYPE.goAway:
        this.transportClosed();
        this.#transport.close();
        return;
    }
  }

  async #synStream(data: Uint8Array, flags: number): Promise<void> {
    const id = wordAt(data, 0) & 0x7fffffff;
    const headers = decodeHeaderBlock(await this.#inflateBlock(data.subarray(10)));
    const stream = new SpdyStream(id, headers, this);
    this.#streams.set(id, stream);
    await this._send(async () =>
      controlFrame(
        SPDY_TYPE.synReply,
        0,
        Buffer.concat([words(id), await this.#deflateBlock(encodeHeaderBlock([]))]),
      )
    );
    if (flags & FLAG_FIN) stream._remoteEnd();
    this.#onStream(stream);
  }

  #inflateBlock(block: Uint8Array): Promise<Uint8Array> {
    return zlibFlush(this.#inflate, block);
  }

  #deflateBlock(block: Uint8Array): Promise<Uint8Array> {
    return zlibFlush(this.#deflate, block);
  }
}

/** Writes `input` to a zlib stream and collects what a sync flush yields. */
function zlibFlush(z: zlib.Inflate | zlib.Deflate, input: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const onData = (c: Buffer) => out.push(c);
    const onError = (e: Error) => {
      z.off("data", onData);
      reject(e);
    };
    z.on("data", onData);
    z.once("error", onError);
    z.write(Buffer.from(input));
    z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      z.off("data", onData);
      z.off("error", onError);
      resolve(Buffer.concat(out));
    });
  });
}
