/**
 * Checks a CronJob schedule as the standard cron parser Kubernetes uses does (five fields:
 * minute, hour, day of month, month, day of week; names for months and days; `*`, `?`, ranges,
 * steps and lists; the `@yearly` … `@hourly` and `@every <duration>` descriptors), with its error
 * messages.
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

function checkRange(expr: string, b: Bounds): void {
  const slash = expr.split("/");
  if (slash.length > 2) throw new CronError(`too many slashes: ${expr}`);
  const dash = slash[0].split("-");
  if (dash.length > 2) throw new CronError(`too many hyphens: ${expr}`);
  let start: number, end: number;
  if (dash[0] === "*" || dash[0] === "?") {
    start = b.min;
    end = b.max;
  } else {
    start = valueOf(dash[0], b);
    end = dash.length === 2 ? valueOf(dash[1], b) : start;
  }
  if (slash.length === 2) {
    const step = parseInt(slash[1]);
    if (step <= 0) throw new CronError(`step of range should be a positive number: ${expr}`);
  }
  if (start < b.min) {
    throw new CronError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  }
  if (end > b.max) throw new CronError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) {
    throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  }
}

function checkDuration(s: string): void {
  if (!/^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/.test(s)) {
    throw new CronError(
      `failed to parse duration ${s}: time: invalid duration ${JSON.stringify(s)}`,
    );
  }
}

/** The parser's error for `spec`, or undefined when it is a valid schedule. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    let s = spec.trim();
    if (s === "") throw new CronError("empty spec string");
    if (s.startsWith("TZ=") || s.startsWith("CRON_TZ=")) {
      const space = s.indexOf(" ");
      const zone = s.slice(s.indexOf("=") + 1, space < 0 ? undefined : space);
      if (!isTimeZone(zone)) {
        throw new CronError(`provided bad location ${zone}: unknown time zone ${zone}`);
      }
      s = space < 0 ? "" : s.slice(space).trim();
    }
    if (s.startsWith("@")) {
      if (s.startsWith("@every ")) checkDuration(s.slice(7).trim());
      else if (!DESCRIPTORS.has(s)) throw new CronError(`unrecognized descriptor: ${s}`);
      return undefined;
    }
    const fields = s.split(/\s+/).filter((f) => f !== "");
    if (fields.length !== 5) {
      throw new CronError(
        `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`,
      );
    }
    fields.forEach((f, i) => f.split(",").forEach((r) => checkRange(r, FIELDS[i])));
    return undefined;
  } catch (err) {
    if (err instanceof CronError) return err.message;
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
