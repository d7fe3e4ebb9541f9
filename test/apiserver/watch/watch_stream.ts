/**
 * Test helper: reads a watch response line by line, with deadlines instead of sleeps.
 *
 * @module
 */

/** One watch event as received. */
export interface WatchEvent {
  type: string;
  // deno-lint-ignore no-explicit-any
  object: any;
}

/** A watch response being read. */
export class WatchStream {
  readonly response: Response;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buf = "";
  #events: WatchEvent[] = [];
  #done = false;
  #reading: Promise<void> | undefined;

  readonly #skip?: (ev: WatchEvent) => boolean;

  /** Reads `response`; events `skip` matches are dropped as they arrive. */
  constructor(response: Response, skip?: (ev: WatchEvent) => boolean) {
    this.response = response;
    this.#reader = response.body!.getReader();
    this.#skip = skip;
  }

  /** Whether the server ended the stream. */
  get done(): boolean {
    return this.#done;
  }

  /**
   * The next event; throws if none arrives within `timeoutMs`, resolves undefined when the
   * stream ended.
   */
  async next(timeoutMs = 10_000): Promise<WatchEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#events.length === 0 && !this.#done) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
      await this.#readOnce(left);
    }
    return this.#events.shift();
  }

  /** The next `n` events (throws if the stream ends first). */
  async take(n: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    while (out.length < n) {
      const ev = await this.next(timeoutMs);
      if (!ev) throw new Error(`stream ended after ${out.length} of ${n} events`);
      out.push(ev);
    }
    return out;
  }

  /** The next event that is not a BOOKMARK. */
  async nextChange(timeoutMs = 10_000): Promise<WatchEvent | undefined> {
    for (;;) {
      const ev = await this.next(timeoutMs);
      if (!ev || ev.type !== "BOOKMARK") return ev;
    }
  }

  /** Reads until the stream ends; returns what arrived. Throws after `timeoutMs`. */
  async rest(timeoutMs = 10_000): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const ev = await this.next(timeoutMs);
      if (!ev) return out;
      out.push(ev);
    }
  }

  /** Cancels the stream (the client goes away). */
  async cancel(): Promise<void> {
    this.#done = true;
    await this.#reader.cancel().catch(() => {});
  }

  #readOnce(timeoutMs: number): Promise<void> {
    this.#reading ??= this.#reader.read().then(({ done, value }) => {
      this.#reading = undefined;
      if (done) {
        this.#done = true;
        return;
      }
      this.#buf += this.#decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = this.#buf.indexOf("\n")) >= 0) {
        const line = this.#buf.slice(0, nl).trim();
        this.#buf = this.#buf.slice(nl + 1);
        if (!line) continue;
        const ev = JSON.parse(line) as WatchEvent;
        if (!this.#skip?.(ev)) this.#events.push(ev);
      }
    }, (err) => {
      this.#reading = undefined;
      this.#done = true;
      if (!(err instanceof Error && /abort|cancel|closed|reset/i.test(err.message))) throw err;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs));
    return Promise.race([this.#reading, timeout]).finally(() => clearTimeout(timer));
  }
}
