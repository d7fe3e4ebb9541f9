/**
 * humanDuration and ageCell: durations as kubectl's AGE column shows them (`45s`, `5m3s`,
 * `3h`, `2d5h`, `400d`, `3y12d`).
 *
 * @module
 */

/** Formats a duration in milliseconds the way Kubernetes' HumanDuration does. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return d === 0 ? `${y}y` : `${y}y${d}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The age of an RFC 3339 timestamp at `now` (ms), or `<unknown>` when it is unset or bad. */
export function ageCell(timestamp: unknown, now: number): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}
