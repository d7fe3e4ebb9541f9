/**
 * The activation times of a parsed cron schedule (as robfig/cron, which kube's cronjob
 * controller uses): the first minute after a time whose wall clock in the schedule's time zone
 * matches every field (day of month or day of week when both are restricted), or a constant
 * delay for `@every`.
 *
 * @module
 */
import type { CronSchedule } from "../../registry/batch/cronjobs/cron_schedule.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** How far ahead a schedule is searched (robfig gives up after five years too). */
const HORIZON_MS = 5 * 366 * DAY;

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone the process runs in (kube-controller-manager's time.Local). */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The offset of `zone` from UTC at `instant`, ms (wall clock = instant + offset). */
export function zoneOffset(zone: string, instant: number): number {
  let fmt = formats.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formats.set(zone, fmt);
  }
  const p: Record<string, number> = {};
  for (const part of fmt.formatToParts(new Date(instant))) p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(instant / 1000) * 1000;
}

function dayMatches(s: CronSchedule, wall: Date): boolean {
  const [, , dom, , dow] = s.fields!;
  const domHit = dom.has(wall.getUTCDate());
  const dowHit = dow.has(wall.getUTCDay());
  return s.domStar || s.dowStar ? domHit && dowHit : domHit || dowHit;
}

/** The first wall-clock minute at or after `wall` (a UTC-coded wall time) that matches. */
function nextWall(s: CronSchedule, wall: number, limit: number): number | undefined {
  const [minutes, hours, , months] = s.fields!;
  let t = Math.ceil(wall / MINUTE) * MINUTE;
  while (t <= limit) {
    const d = new Date(t);
    if (!months.has(d.getUTCMonth() + 1)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    } else if (!dayMatches(s, d)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    } else if (!hours.has(d.getUTCHours())) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
    } else if (!minutes.has(d.getUTCMinutes())) t += MINUTE;
    else return t;
  }
  return undefined;
}

/**
 * The first activation strictly after `after` (ms), in `zone` unless the schedule names its
 * own; undefined when none falls within five years.
 */
export function nextActivation(s: CronSchedule, after: number, zone: string): number | undefined {
  if (s.everyMs !== undefined) {
    const delay = Math.max(1000, Math.floor(s.everyMs / 1000) * 1000);
    return Math.floor(after / 1000) * 1000 + delay;
  }
  const tz = s.zone ?? zone;
  let from = after + zoneOffset(tz, after) + 1;
  const limit = from + HORIZON_MS;
  for (;;) {
    const wall = nextWall(s, from, limit);
    if (wall === undefined) return undefined;
    // The instant of that wall time (the offset read at the instant itself, for DST).
    let instant = wall - zoneOffset(tz, wall);
    instant = wall - zoneOffset(tz, instant);
    if (instant > after) return instant;
    from = wall + MINUTE;
  }
}

/**
 * The latest activation in (earliest, now] and about how many there were (kube's
 * `mostRecentScheduleTime`): the interval between the first two activations estimates the
 * count, and the search starts one interval before the estimate, so a schedule missed for
 * years costs no more than one missed for minutes.
 */
export function mostRecentActivation(
  s: CronSchedule,
  earliest: number,
  now: number,
  zone: string,
): { recent?: number; missed: number } {
  const t1 = nextActivation(s, earliest, zone);
  if (t1 === undefined || now < t1) return { missed: 0 };
  const t2 = nextActivation(s, t1, zone);
  if (t2 === undefined || now < t2) return { recent: t1, missed: 1 };
  const interval = Math.max(1000, Math.round((t2 - t1) / 1000) * 1000);
  const missed = Math.floor((now - t1) / interval) + 1;
  let recent: number | undefined;
  const from = t1 + (missed - 2) * interval;
  for (let t = nextActivation(s, from, zone); t !== undefined && t <= now;) {
    recent = t;
    t = nextActivation(s, t, zone);
  }
  return { recent: recent ?? t1, missed };
}
