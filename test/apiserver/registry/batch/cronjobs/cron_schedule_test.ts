import assert from "node:assert/strict";
import {
  cronScheduleError,
  isTimeZone,
} from "../../../../../apiserver/registry/batch/cronjobs/cron_schedule.ts";

Deno.test("cronScheduleError() accepts standard schedules and descriptors", () => {
  for (
    const s of [
      "* * * * *",
      "*/5 * * * *",
      "0 0 1 jan *",
      "0 9-17/2 * * mon-fri",
      "15,45 * ? * SUN",
      "@hourly",
      "@every 1h30m",
      "TZ=UTC 0 * * * *",
    ]
  ) assert.equal(cronScheduleError(s), undefined, s);
});

Deno.test("cronScheduleError() answers the cron parser's messages", () => {
  assert.equal(cronScheduleError(""), "empty spec string");
  assert.equal(cronScheduleError("nope"), "expected exactly 5 fields, found 1: [nope]");
  assert.equal(cronScheduleError("61 * * * *"), "end of range (61) above maximum (59): 61");
  assert.equal(cronScheduleError("* * 0 * *"), "beginning of range (0) below minimum (1): 0");
  assert.equal(
    cronScheduleError("5-1 * * * *"),
    "beginning of range (5) beyond end of range (1): 5-1",
  );
  assert.equal(cronScheduleError("*/0 * * * *"), "step of range should be a positive number: */0");
  assert.equal(cronScheduleError("@sometimes"), "unrecognized descriptor: @sometimes");
  assert.match(cronScheduleError("x * * * *")!, /^failed to parse int from x: /);
});

Deno.test("isTimeZone() knows IANA zones only", () => {
  assert.equal(isTimeZone("Europe/Berlin"), true);
  assert.equal(isTimeZone("Mars/Olympus"), false);
  assert.equal(isTimeZone(""), false);
});
