import assert from "node:assert/strict";
import {
  ChangeFeedResourceFeed,
  type ResourceEvent,
} from "../../../../apiserver/auth/authz/resource_feed.ts";
import { LibsqlStorage } from "../../../../apiserver/storage/libsql/libsql_storage.ts";
import { ChangeFeed } from "../../../../apiserver/watch/change_feed.ts";

const ROLES = "/registry/rbac.authorization.k8s.io/roles/";

function role(name: string, v = "1"): string {
  return JSON.stringify({ metadata: { name, namespace: "ns", labels: { v } } });
}

/** `TYPE name@revision` of each event. */
function summary(events: ResourceEvent[]): string[] {
  return events.map((e) => `${e.type} ${e.object.metadata.name}@${e.revision}`);
}

Deno.test("ChangeFeedResourceFeed.follow() sees another client's changes in order and a re-list as a difference", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${dir}/state.db`;
  // Two clients of one database: `other` stands for another API server.
  const mine = await LibsqlStorage.open({ url, historyWindowMs: 60_000 });
  const other = await LibsqlStorage.open({ url, historyWindowMs: 60_000 });
  const errors: string[] = [];
  const feed = new ChangeFeed({
    storage: mine,
    remote: true,
    historyWindowMs: 60_000,
    // Polls only when asked, so the test decides when the other client's writes are read.
    tuning: { pollIntervalMs: 3_600_000 },
    onError: (message) => errors.push(message),
  });
  let stop: (() => void) | undefined;
  try {
    await mine.create(`${ROLES}ns/a`, role("a"));
    await mine.create(`${ROLES}ns/b`, role("b"));
    await mine.create("/registry/core/configmaps/ns/elsewhere", role("elsewhere"));
    await feed.start();
    const batches: ResourceEvent[][] = [];
    stop = await new ChangeFeedResourceFeed(feed).follow([ROLES], (e) => batches.push(e));
    assert.deepEqual(summary(batches.flat()), ["ADDED a@1", "ADDED b@2"]);
    assert.equal(batches[0][0].object.metadata.resourceVersion, "1");

    // This process's commits arrive at once; the other client's once the log is read.
    const c = await mine.create(`${ROLES}ns/c`, role("c"));
    assert.deepEqual(summary(batches.flat().slice(2)), [`ADDED c@${c.revision}`]);
    const a2 = await other.update(`${ROLES}ns/a`, role("a", "2"), 1);
    const d = await other.delete(`${ROLES}ns/b`, 0);
    await other.create("/registry/core/configmaps/ns/elsewhere2", role("x"));
    assert.ok(await feed.waitFor(d.revision + 1));
    assert.deepEqual(summary(batches.flat().slice(3)), [
      `MODIFIED a@${a2.revision}`,
      `DELETED b@${d.revision}`,
    ]);
    assert.equal(batches.flat().at(-1)?.object.metadata.namespace, "ns");

    // The other client writes and compacts before this feed reads the log: the feed lists
    // everything again, and the follower gets the difference.
    const before = batches.length;
    await other.delete(`${ROLES}ns/c`, 0);
    const e = await other.create(`${ROLES}ns/e`, role("e"));
    const a3 = await other.update(`${ROLES}ns/a`, role("a", "3"), a2.revision);
    await other.compact(a3.revision);
    assert.ok(await feed.waitFor(a3.revision));
    const diff = batches.slice(before).flat();
    assert.deepEqual(summary(diff).sort(), [
      `ADDED e@${e.revision}`,
      `DELETED c@${a3.revision}`,
      `MODIFIED a@${a3.revision}`,
    ]);
    const deleted = diff.find((x) => x.type === "DELETED")!;
    assert.deepEqual(deleted.object.metadata, {
      name: "c",
      namespace: "ns",
      resourceVersion: String(a3.revision),
    });
    assert.equal(errors.length, 1, "the fall-back re-list is reported");

    // After stopping, nothing more arrives.
    stop();
    const n = batches.length;
    await mine.create(`${ROLES}ns/f`, role("f"));
    assert.equal(batches.length, n);
  } finally {
    stop?.();
    await feed.stop();
    await other.close();
    await mine.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ChangeFeed.follow() refuses before the feed started", async () => {
  const dir = await Deno.makeTempDir();
  const storage = await LibsqlStorage.open({ url: `file:${dir}/state.db` });
  try {
    const feed = new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 });
    await assert.rejects(
      () => new ChangeFeedResourceFeed(feed).follow([ROLES], () => {}),
      /not running/,
    );
  } finally {
    await storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});
