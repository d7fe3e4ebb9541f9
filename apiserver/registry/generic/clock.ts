/** An injectable clock, so tests never wait on real time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Formats a time the way Kubernetes serializes metav1.Time: RFC 3339, second precision. */
export { formatTime as rfc3339 } from "../../../shared/api/meta/v1/time.ts";
