import assert from "node:assert/strict";
import { BusyRetry, isBusy } from "../../../../apiserver/storage/libsql/busy_retry.ts";

Deno.test("BusyRetry.run() retries while the database is busy and counts the retries", async () => {
  const stats = { busyRetries: 0 };
  const retry = new BusyRetry(stats, () => false);
  let calls = 0;
  const result = await retry.run(() => {
    calls++;
    if (calls < 3) {
      return Promise.reject(Object.assign(new Error("locked"), { code: "SQLITE_BUSY" }));
    }
    return Promise.resolve("done");
  });
  assert.equal(result, "done");
  assert.equal(calls, 3);
  assert.equal(stats.busyRetries, 2);
});

Deno.test("BusyRetry.run() rethrows other errors and stops retrying once closed", async () => {
  const stats = { busyRetries: 0 };
  await assert.rejects(
    new BusyRetry(stats, () => false).run(() => Promise.reject(new Error("no such table: kv"))),
    /no such table/,
  );
  await assert.rejects(
    new BusyRetry(stats, () => true).run(() => Promise.reject(new Error("database is locked"))),
    /database is locked/,
  );
  assert.equal(stats.busyRetries, 0);
});

Deno.test("isBusy() recognises SQLITE_BUSY, SQLITE_LOCKED and 'database is locked'", () => {
  assert.ok(isBusy({ code: "SQLITE_BUSY" }));
  assert.ok(isBusy(new Error("SQLITE_LOCKED: database table is locked")));
  assert.ok(isBusy(new Error("database is locked")));
  assert.ok(!isBusy(new Error("UNIQUE constraint failed")));
  assert.ok(!isBusy(undefined));
});
