/**
 * What the HTTPS listener's handler receives: the fetch-style handler type and the
 * {@link ConnInfo} that describes a request's client and connection.
 *
 * @module
 */

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
   * `BUFFERED_REQUEST_BODY_BYTES` in serve_exchange.ts), else undefined. Reading it leaves `req.body`
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
