/**
 * Polls a condition until it holds, with a generous deadline, for tests that wait for
 * something asynchronous (a controller, a watch, a process) instead of sleeping.
 *
 * ```ts
 * await eventually("the namespace gone", async () => (await get(ns)).status === 404);
 * const node = await eventually("the Node", () => client.get(NODE), { retryErrors: true });
 * ```
 *
 * @module
 */

/** How {@linkcode eventually} polls. */
export interface PollOptions {
  /** Give up after this many milliseconds (default 30 000: generous on a loaded machine). */
  timeoutMs?: number;
  /** Wait between tries, in milliseconds (default 25). */
  intervalMs?: number;
  /** Count a try that throws as "not yet" (the last error is reported on timeout). */
  retryErrors?: boolean;
}

/**
 * Calls `check` until it returns something other than `false` or `undefined`, and returns
 * that; throws `timed out waiting for <what>` once the deadline has passed.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  options: PollOptions = {},
): Promise<Exclude<T, false | undefined>> {
  const { timeoutMs = 30_000, intervalMs = 25, retryErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== false && v !== undefined) return v as Exclude<T, false | undefined>;
    } catch (err) {
      if (!retryErrors) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const cause = last === undefined ? "" : `: ${last instanceof Error ? last.message : last}`;
      throw new Error(`timed out waiting for ${what}${cause}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
