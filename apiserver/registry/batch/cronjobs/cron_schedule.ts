/**
 * Parses a CronJob schedule as the standard cron parser Kubernetes uses does (five fields:
 * minute, hour, day of month, month, day of week; names for months and days; `*`, `?`, ranges,
 * steps and lists; the `@yearly` … `@hourly` and `@every <duration>` descriptors), with its error
 * messages. The CronJob strategy validates with it and the cronjob controller schedules with
 * its result.
 *
 * @module
 */

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = new Set([
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
]);

class CronError extends Error {}

function parseInt(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) {
    throw new CronError(
      `failed to parse int from ${expr}: strconv.Atoi: parsing ${
        JSON.stringify(expr)
      }: invalid syntax`,
    );
  }
  const n = Number(expr);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function valueOf(expr: string, b: Bounds): number {
  const named = b.names?.[expr.toLowerCase()];
  return named ?? parseInt(expr);
}

/** A parsed schedule: the allowed values of each field, or a constant delay (`@every`). */
export interface CronSchedule {
  /** Minutes, hours, days of month, months, days of week (0 Sunday). */
  fields?: [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  /** Whether the day-of-month and day-of-week fields were `*` or `?` (no step). */
  domStar?: boolean;
  dowStar?: boolean;
  /** `@every <duration>`: the delay, ms. */
  everyMs?: number;
  /** The `TZ=`/`CRON_TZ=` zone of the schedule, if any. */
  zone?: string;
}

/** The fields of the descriptors. */
const DESCRIPTOR_FIELDS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** Adds the values of one range expression to `out`; answers whether it was a bare star. */
function checkRange(expr: string, b: Bounds, out: Set<number>): boolean {
  const slash = expr.split("/");
  if (slash.length > 2) throw new CronError(`too many slashes: ${expr}`);
  const dash = slash[0].split("-");
  if (dash.length > 2) throw new CronError(`too many hyphens: ${expr}`);
  let start: number, end: number, step = 1;
  let star = false;
  if (dash[0] === "*" || dash[0] === "?") {
    start = b.min;
    end = b.max;
    star = true;
  } else {
    start = valueOf(dash[0], b);
    end = dash.length === 2 ? valueOf(dash[1], b) : start;
  }
  if (slash.length === 2) {
    step = parseInt(slash[1]);
    if (step <= 0) throw new CronError(`step of range should be a positive number: ${expr}`);
    if (dash.length === 1 && !star) end = b.max; // "N/step" means N-max/step
    if (step > 1) star = false;
  }
  if (start < b.min) {
    throw new CronError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  }
  if (end > b.max) throw new CronError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) {
    throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  }
  for (let v = start; v <= end; v += step) out.add(v);
  return star;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

function checkDuration(s: string): number {
  if (!/^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/.test(s)) {
    throw new CronError(
      `failed to parse duration ${s}: time: invalid duration ${JSON.stringify(s)}`,
    );
  }
  let ms = 0;
  for (const m of s.matchAll(/([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/g)) {
    ms += Number(m[1]) * UNIT_MS[m[2]];
  }
  return ms;
}

/** The parser's error for `spec`, or undefined when it is a valid schedule. */
export function cronScheduleError(spec: string): string | undefined {
  const parsed = parseCronSchedule(spec);
  return "error" in parsed ? parsed.error : undefined;
}

/** Parses `spec`: the schedule, or the parser's error. */
export function parseCronSchedule(spec: string): CronSchedule | { error: string } {
  try {
    let s = spec.trim();
    if (s === "") throw new CronError("empty spec string");
    let zone: string | undefined;
    if (s.startsWith("TZ=") || s.startsWith("CRON_TZ=")) {
      const space = s.indexOf(" ");
      zone = s.slice(s.indexOf("=") + 1, space < 0 ? undefined : space);
      if (!isTimeZone(zone)) {
        throw new CronError(`provided bad location ${zone}: unknown time zone ${zone}`);
      }
      s = space < 0 ? "" : s.slice(space).trim();
    }
    if (s.startsWith("@")) {
      if (s.startsWith("@every ")) return { everyMs: checkDuration(s.slice(7).trim()), zone };
      if (!DESCRIPTORS.has(s)) throw new CronError(`unrecognized descriptor: ${s}`);
      s = DESCRIPTOR_FIELDS[s];
    }
    const fields = s.split(/\s+/).filter((f) => f !== "");
    if (fields.length !== 5) {
      throw new CronError(
        `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`,
      );
    }
    const sets = fields.map(() => new Set<number>()) as NonNullable<CronSchedule["fields"]>;
    const stars = fields.map((f, i) =>
      f.split(",").map((r) => checkRange(r, FIELDS[i], sets[i])).every((x) => x)
    );
    return { fields: sets, domStar: stars[2], dowStar: stars[4], zone };
  } catch (err) {
    if (err instanceof CronError) return { error: err.message };
    throw err;
  }
}

/** Whether `zone` names an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone !== "";
  } catch {
    return false;
  }
}
