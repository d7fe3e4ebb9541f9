/**
 * The kubelet's container back-off (`flowcontrol.Backoff` as the kubelet configures it): the
 * first wait 10 s, doubling to 5 min; an entry not updated for 2 × the maximum (10 min) starts
 * over. Used for crash restarts (`CrashLoopBackOff`) and image pulls (`ImagePullBackOff`).
 *
 * @module
 */
import { formatDuration } from "../../shared/time/duration.ts";

/** The first crash back-off (ms). */
export const CRASH_BACKOFF_BASE_MS = 10_000;
/** The longest crash back-off (ms). */
export const CRASH_BACKOFF_MAX_MS = 300_000;
/** How long after its last restart a crash starts the back-off over (2 × the maximum). */
export const CRASH_BACKOFF_RESET_MS = 2 * CRASH_BACKOFF_MAX_MS;

/** One back-off entry: the current wait and when it was last moved. */
export interface Backoff {
  /** The current wait (ms). */
  ms: number;
  /** When the entry was last moved (ms since the epoch). */
  lastUpdate: number;
}

/** Formats milliseconds as Go's `time.Duration` does for whole seconds (`1m20s`, `5m0s`). */
export function goDuration(ms: number): string {
  return formatDuration(Math.round(ms / 1000) * 1000);
}

/** Moves a back-off to its next step, as `flowcontrol.Backoff.Next` does. */
export function nextBackoff(b: Backoff | undefined, eventTime: number, now: number): Backoff {
  if (!b || eventTime - b.lastUpdate > CRASH_BACKOFF_RESET_MS) {
    return { ms: CRASH_BACKOFF_BASE_MS, lastUpdate: now };
  }
  return { ms: Math.min(b.ms * 2, CRASH_BACKOFF_MAX_MS), lastUpdate: now };
}

/** Whether `eventTime` is still inside the back-off window (`IsInBackOffSince`). */
export function inBackoff(b: Backoff | undefined, eventTime: number, now: number): boolean {
  if (!b || eventTime - b.lastUpdate > CRASH_BACKOFF_RESET_MS) return false;
  return now - eventTime < b.ms;
}

/** The `CrashLoopBackOff` message: `back-off 10s restarting failed container=x pod=y_ns(uid)`. */
export function crashLoopMessage(
  b: Backoff,
  container: string,
  pod: { name: string; namespace: string; uid: string },
): string {
  return `back-off ${
    goDuration(b.ms)
  } restarting failed container=${container} pod=${pod.name}_${pod.namespace}(${pod.uid})`;
}
