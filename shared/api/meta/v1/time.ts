/**
 * metav1.Time on the wire: RFC 3339 in UTC with second precision (`2026-11-22T11:00:00Z`).
 *
 * @module
 */

let lastSecond = NaN;
let lastText = "";

/**
 * Formats `ms` (since the epoch) as Kubernetes serializes metav1.Time, dropping the
 * milliseconds. The text of the latest second is kept: every write stamps the current time
 * (creationTimestamp, managedFields), so most calls format the same second.
 */
export function formatTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace(".000Z", "Z");
    lastSecond = second;
  }
  return lastText;
}
