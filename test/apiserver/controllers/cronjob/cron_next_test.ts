import assert from "node:assert/strict";
import {
  type CronSchedule,
  parseCronSchedule,
} from "../../../../apiserver/registry/batch/cronjobs/cron_schedule.ts";
import {
  mostRecentActivation,
  nextActivation,
} from "../../../../apiserver/controllers/cronjob/cron_next.ts";

function parse(spec: string): CronSchedule {
  const s = parseCronSchedule(spec);
  if ("error" in s) throw new Error(s.error);
  return s;
}

const iso = (ms: number | undefined) => ms === undefined ? "none" : new Date(ms).toISOString();
const at = (s: string) => Date.parse(s);

Deno.test("nextActivation() finds the next matching minute in UTC", () => {
  const t = at("2026-01-01T12:00:30Z");
  assert.equal(iso(nextActivation(parse("* * * * *"), t, "UTC")), "2026-01-01T12:01:00.000Z");
  assert.equal(iso(nextActivation(parse("*/15 * * * *"), t, "UTC")), "2026-01-01T12:15:00.000Z");
  assert.equal(iso(nextActivation(parse("@hourly"), t, "UTC")), "2026-01-01T13:00:00.000Z");
  assert.equal(iso(nextActivation(parse("@daily"), t, "UTC")), "2026-01-02T00:00:00.000Z");
  assert.equal(iso(nextActivation(parse("@yearly"), t, "UTC")), "2027-01-01T00:00:00.000Z");
  assert.equal(iso(nextActivation(parse("0 9 * * mon-fri"), t, "UTC")), "2026-01-02T09:00:00.000Z");
  assert.equal(iso(nextActivation(parse("30 2 29 2 *"), t, "UTC")), "2028-02-29T02:30:00.000Z");
  assert.equal(iso(nextActivation(parse("@every 90s"), t, "UTC")), "2026-01-01T12:02:00.000Z");
});

Deno.test("nextActivation() ORs day of month and day of week when both are restricted", () => {
  // 2026-01-01 is a Thursday: the 15th or a Monday, whichever comes first (Monday the 5th).
  assert.equal(
    iso(nextActivation(parse("0 0 15 * 1"), at("2026-01-01T00:00:00Z"), "UTC")),
    "2026-01-05T00:00:00.000Z",
  );
  // A star day of week leaves only the day of month.
  assert.equal(
    iso(nextActivation(parse("0 0 15 * *"), at("2026-01-01T00:00:00Z"), "UTC")),
    "2026-01-15T00:00:00.000Z",
  );
});

Deno.test("nextActivation() reads the wall clock of the time zone", () => {
  const t = at("2026-01-01T12:00:00Z");
  // 09:00 in New York (UTC-5 in January) is 14:00 UTC.
  assert.equal(
    iso(nextActivation(parse("0 9 * * *"), t, "America/New_York")),
    "2026-01-01T14:00:00.000Z",
  );
  assert.equal(
    iso(nextActivation(parse("CRON_TZ=Asia/Tokyo 0 9 * * *"), t, "UTC")),
    "2026-01-02T00:00:00.000Z",
  );
  // In July New York is UTC-4.
  assert.equal(
    iso(nextActivation(parse("0 9 * * *"), at("2026-07-01T00:00:00Z"), "America/New_York")),
    "2026-07-01T13:00:00.000Z",
  );
});

Deno.test("mostRecentActivation() finds the latest missed activation without walking every one", () => {
  const now = at("2026-06-01T12:07:30Z");
  const yearAgo = at("2025-06-01T12:00:00Z");
  const r = mostRecentActivation(parse("*/5 * * * *"), yearAgo, now, "UTC");
  assert.equal(iso(r.recent), "2026-06-01T12:05:00.000Z");
  assert.equal(r.missed, 365 * 24 * 12 + 1);
  assert.deepEqual(mostRecentActivation(parse("@hourly"), now - 60_000, now, "UTC"), { missed: 0 });
  const one = mostRecentActivation(parse("@hourly"), at("2026-06-01T11:30:00Z"), now, "UTC");
  assert.deepEqual([iso(one.recent), one.missed], ["2026-06-01T12:00:00.000Z", 1]);
  const weekdays = mostRecentActivation(parse("30 6-16/4 * * 1-5"), yearAgo, now, "UTC");
  assert.equal(iso(weekdays.recent), "2026-06-01T10:30:00.000Z"); // a Monday
});
