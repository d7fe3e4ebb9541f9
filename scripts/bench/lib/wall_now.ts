/**
 * The clock the watch benchmark's processes share.
 *
 * @module
 */

/** The clock shared by the benchmark's processes (ms since the epoch). */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}
