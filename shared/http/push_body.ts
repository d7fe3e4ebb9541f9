/**
 * Response bodies that write themselves. A long-running stream such as a watch produces its
 * chunks when events happen; going through a ReadableStream costs a read request, a promise
 * and a turn of the writing loop per chunk, which for one event fanned out to a thousand
 * watchers is most of the work. A {@link PushSource} is instead handed the connection's
 * {@link PushSink} and writes each chunk as it has it, pausing when the connection is full.
 *
 * A push Response is still an ordinary Response with a readable body, so everything that does
 * not know about push bodies (tests calling a handler, wrappers) reads it the usual way; the
 * listener uses one or the other, never both. The listener pushes to HTTP/2 streams, whose
 * frames for one turn leave in one write per connection, and reads the stream for HTTP/1.1.
 *
 * @module
 */

/** Where a pushed body writes: the response's connection or stream. */
export interface PushSink {
  /**
   * Writes a chunk at once. False when the connection's buffer is full: the source should hold
   * further chunks until its `drain()` is called (what it writes anyway is buffered).
   */
  write(chunk: Uint8Array): boolean;
  /** Ends the body. */
  end(): void;
}

/** A body that writes itself to a {@link PushSink}. */
export interface PushSource {
  /** The response head is sent: write what is ready now, and then as it comes. */
  attach(sink: PushSink): void;
  /** The sink can take more after its write() returned false. */
  drain(): void;
  /** The client went away: stop, nothing more will be written. */
  cancel(): void;
}

/**
 * A Response whose body is `stream` for ordinary readers and `source` for a listener that
 * knows push bodies (see {@link pushSourceOf}).
 */
export class PushResponse extends Response {
  /** The body's push source. */
  readonly source: PushSource;

  constructor(stream: ReadableStream<Uint8Array>, source: PushSource, init: ResponseInit) {
    super(stream, init);
    this.source = source;
  }
}

/** A {@link PushResponse}. */
export function pushResponse(
  stream: ReadableStream<Uint8Array>,
  source: PushSource,
  init: ResponseInit,
): Response {
  return new PushResponse(stream, source, init);
}

/** The push source of a {@link PushResponse}, unless its body was read. */
export function pushSourceOf(response: Response): PushSource | undefined {
  if (!(response instanceof PushResponse)) return undefined;
  if (response.bodyUsed || response.body?.locked) return undefined;
  return response.source;
}
