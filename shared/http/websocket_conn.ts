/**
 * A server-side WebSocket connection over an upgraded socket (see
 * {@link ./upgrade_response.ts}): messages reassembled from frames, pings answered, the
 * closing handshake, and backpressure on sends.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { encodeFrame, FrameError, FrameParser, OPCODE } from "./websocket_frame.ts";

/** Largest message accepted from a client. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** What a {@link WebSocketConn} tells its owner. */
export interface WebSocketHandlers {
  /** A complete message (`binary` false for a text message, whose bytes are UTF-8). */
  message(data: Uint8Array, binary: boolean): void;
  /** The connection is closed (by either side, or broken); called once. */
  closed(): void;
}

/** See the module documentation. */
export class WebSocketConn {
  readonly #socket: Socket;
  readonly #parser = new FrameParser({ maxPayload: MAX_MESSAGE_BYTES });
  #handlers: WebSocketHandlers | undefined;
  #parts: Uint8Array[] = [];
  #partsBytes = 0;
  #partsBinary = true;
  #closeSent = false;
  #closed = false;

  /** Takes over `socket`; `head` holds bytes that arrived with the upgrade request. */
  constructor(socket: Socket, head: Uint8Array) {
    this.#socket = socket;
    socket.on("data", (chunk: Uint8Array) => this.#onData(chunk));
    socket.on("close", () => this.#onClosed());
    socket.on("error", () => socket.destroy());
    socket.pause();
    if (head.length) queueMicrotask(() => this.#onData(head));
  }

  /** Starts delivering messages to `handlers`. */
  start(handlers: WebSocketHandlers): void {
    this.#handlers = handlers;
    if (this.#closed) handlers.closed();
    else this.#socket.resume();
  }

  /** Whether the connection is closed or closing. */
  get closed(): boolean {
    return this.#closed || this.#closeSent;
  }

  /** Sends a message; resolves once the socket can take more. */
  send(data: Uint8Array | string, binary = true): Promise<void> {
    if (this.closed) return Promise.resolve();
    const payload = typeof data === "string" ? Buffer.from(data) : data;
    const ok = this.#socket.write(encodeFrame(binary ? OPCODE.binary : OPCODE.text, payload));
    if (ok) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#socket.off("drain", done);
        this.#socket.off("close", done);
        resolve();
      };
      this.#socket.on("drain", done);
      this.#socket.on("close", done);
    });
  }

  /** Starts the closing handshake; the socket ends when the client answers, or after 5 s. */
  close(code = 1000, reason = ""): void {
    if (this.#closeSent || this.#closed) return;
    this.#closeSent = true;
    const body = Buffer.alloc(2 + Buffer.byteLength(reason));
    body.writeUInt16BE(code, 0);
    body.write(reason, 2);
    this.#socket.write(encodeFrame(OPCODE.close, body));
    const timer = setTimeout(() => this.#socket.destroy(), 5000);
    this.#socket.once("close", () => clearTimeout(timer));
  }

  /** Ends the connection at once. */
  destroy(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Uint8Array): void {
    if (this.#closed) return;
    let frames;
    try {
      frames = this.#parser.push(chunk);
    } catch (err) {
      const code = err instanceof FrameError ? err.code : 1002;
      this.close(code, err instanceof Error ? err.message : "protocol error");
      this.#socket.end();
      return;
    }
    for (const f of frames) this.#onFrame(f.fin, f.opcode, f.payload);
  }

  #onFrame(fin: boolean, opcode: number, payload: Uint8Array): void {
    switch (opcode) {
      case OPCODE.ping:
        if (!this.#closeSent) this.#socket.write(encodeFrame(OPCODE.pong, payload));
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close:
        if (!this.#closeSent) {
          this.#closeSent = true;
          this.#socket.write(encodeFrame(OPCODE.close, payload.subarray(0, 2)));
        }
        this.#socket.end();
        return;
      case OPCODE.text:
      case OPCODE.binary:
        if (this.#parts.length) return this.#fail("new message inside a fragmented one");
        this.#partsBinary = opcode === OPCODE.binary;
        break;
      case OPCODE.continuation:
        if (!this.#parts.length) return this.#fail("continuation without a message");
        break;
      default:
        return this.#fail(`unknown opcode ${opcode}`);
    }
    this.#parts.push(payload);
    this.#partsBytes += payload.length;
    if (this.#partsBytes > MAX_MESSAGE_BYTES) return this.#fail("message too large", 1009);
    if (!fin) return;
    const data = this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts);
    this.#parts = [];
    this.#partsBytes = 0;
    this.#handlers?.message(data, this.#partsBinary);
  }

  #fail(message: string, code = 1002): void {
    this.close(code, message);
    this.#socket.end();
  }

  #onClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#handlers?.closed();
  }
}
