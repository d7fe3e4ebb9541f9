/**
 * Responses whose whole body is known when they are made.
 *
 * @module
 */

/**
 * A Response whose whole body is known: the listener writes status, headers and body in one
 * piece (with a Content-Length) instead of reading the body stream, which saves a stream
 * reader per response. Everywhere else it is an ordinary Response.
 */
export class FixedResponse extends Response {
  /** The whole body ("" for none); the bytes are shared, so do not modify them. */
  readonly fixedBody: string | Uint8Array;

  /** `null` is an empty body. */
  constructor(body: string | Uint8Array | null, init: ResponseInit) {
    super(body as BodyInit | null, init);
    this.fixedBody = body ?? "";
  }
}

/** A {@link FixedResponse}. */
export function fixedResponse(body: string | Uint8Array | null, init: ResponseInit): Response {
  return new FixedResponse(body, init);
}

/**
 * The whole body of a {@link FixedResponse} ("" for none), or undefined for other responses.
 * Reading it leaves the Response untouched.
 */
export function fixedBody(response: Response): string | Uint8Array | undefined {
  return response instanceof FixedResponse ? response.fixedBody : undefined;
}
