/**
 * Counts the requests a handler is working on (until it returns its Response: a watch counts
 * until its stream opens), so a graceful shutdown can wait for them after the listener stops.
 *
 * @module
 */
import type { ApiHandler } from "./filters/filter.ts";

/** See the module doc. */
export class RequestsInFlight {
  #count = 0;
  #waiters: (() => void)[] = [];

  /** Requests being handled now. */
  get count(): number {
    return this.#count;
  }

  /** `handler`, counted. */
  wrap(handler: ApiHandler): ApiHandler {
    return async (req, conn) => {
      this.#count++;
      try {
        return await handler(req, conn);
      } finally {
        if (--this.#count === 0) { for (const w of this.#waiters.splice(0)) w(); }
      }
    };
  }

  /** Resolves true once no request is in flight, false after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.#count === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      this.#waiters.push(() => resolve(true));
    });
    clearTimeout(timer);
    return done;
  }
}
