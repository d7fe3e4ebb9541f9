/**
 * One request and its response, whatever the protocol version: what the HTTPS listener needs
 * from an HTTP/1.1 exchange ({@link ./http1_connection.ts}) or an HTTP/2 stream
 * ({@link ./http2_connection.ts}) to build a `Request` and write a `Response`.
 *
 * @module
 */
import type { Socket } from "node:net";
import type { RequestHead } from "./request_head.ts";
import type { UpgradedConnection } from "./upgrade_response.ts";

/** Where request body data goes. */
export interface BodySink {
  /** A piece of the body (a view valid only during the call); false asks for a pause. */
  data(chunk: Uint8Array): boolean;
  /** The body is complete. */
  end(): void;
  /** The body cannot be completed (bad framing, the client left). */
  error(err: Error): void;
}

/** One request and its response on a connection. */
export interface Exchange {
  /**
   * The request head. For HTTP/2 it is built from the pseudo-header fields: `target` is
   * `:path`, `host` is `:authority`, and a body without a Content-Length is `chunked`.
   */
  readonly head: RequestHead;
  /** The connection's socket (for the peer's address and certificates). */
  readonly socket: Socket;
  /** Aborted when the client goes away (or resets the stream) before the response is complete. */
  readonly signal: AbortSignal;
  /** Whether the response head has been written. */
  readonly headersSent: boolean;
  /** Receives the request body; set it while handling the request, before the first await. */
  readBody(sink: BodySink): void;
  /** Asks for more body data after the sink returned false. */
  resumeBody(): void;
  /**
   * Writes the whole response: status, `headerLines` (`name: value\r\n` each, names in lower
   * case, without framing fields), and body, with its length.
   */
  respond(
    status: number,
    statusText: string,
    headerLines: string,
    body: string | Uint8Array | null,
  ): void;
  /** Writes the response head of a streamed body (with `contentLength`, sent as it is). */
  writeHead(status: number, statusText: string, headerLines: string, contentLength?: number): void;
  /** Writes a piece of a streamed body; resolves once more can be written, or the client left. */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends a streamed body. */
  end(): void;
  /**
   * HTTP/1.1 only: writes `101 Switching Protocols` with `headerLines` and hands over the
   * socket; undefined when the exchange cannot switch protocols.
   */
  upgrade?(headerLines: string): UpgradedConnection | undefined;
  /** Breaks off the response (the body failed mid-stream): the client sees it incomplete. */
  destroy(): void;
  /**
   * The server is done with the exchange: its handler has returned and the response is written
   * or abandoned. An HTTP/2 stream counts against its connection's concurrency limit until
   * then, even after the client reset it.
   */
  release(): void;
}
