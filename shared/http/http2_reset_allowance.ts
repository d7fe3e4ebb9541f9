/**
 * The allowance of an HTTP/2 connection for streams the client cancels (resets before their
 * response is complete) or opens beyond the concurrency limit: a token bucket. A client that
 * keeps doing so costs the server work without asking anything of it (the rapid reset attack,
 * CVE-2023-44487), and its connection is closed.
 *
 * @module
 */
import { ConnectionError, Http2Error } from "./http2_frame.ts";

/**
 * Defaults of the allowance for cancelled and refused streams, as nghttp2's since the rapid
 * reset attack (CVE-2023-44487): a burst of 1000, refilled by 33 a second.
 */
export const MAX_RESET_BURST = 1000;
/** See {@link MAX_RESET_BURST}. */
export const RESETS_PER_SECOND = 33;

/** What is left of a connection's allowance for cancelled and refused streams. */
export class ResetAllowance {
  #burst: number;
  #perSecond: number;
  #now: () => number;
  #left: number;
  #at: number;

  /** A full allowance of `burst`, refilled by `perSecond` a second of `now` (ms). */
  constructor(burst: number, perSecond: number, now: () => number, since: number) {
    this.#burst = burst;
    this.#perSecond = perSecond;
    this.#now = now;
    this.#left = burst;
    this.#at = since;
  }

  /**
   * Counts one cancelled or refused stream; throws a {@link ConnectionError}
   * (ENHANCE_YOUR_CALM) once the allowance is spent.
   */
  charge(): void {
    const now = this.#now();
    const refill = (now - this.#at) * this.#perSecond / 1000;
    this.#left = Math.min(this.#burst, this.#left + Math.max(0, refill)) - 1;
    this.#at = now;
    if (this.#left < 0) {
      throw new ConnectionError(Http2Error.ENHANCE_YOUR_CALM, "too many streams reset or refused");
    }
  }
}
