import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { WatchStream } from "../apiserver/watch/watch_stream.ts";
import { CM, cm, summary, watch as openWatch, write } from "./_watch_helpers.ts";
import { eventually } from "../support/eventually.ts";

async function watch(t: TestServer, query: string, path = CM): Promise<WatchStream> {
  const w = await openWatch(t, query, path);
  assert.equal(w.response.headers.get("content-type"), "application/json");
  return w;
}

Deno.test("watch follows every row of the watch table over HTTPS", async (t) => {
  const s = await startTestServer([], {
    optionsHook: (o) => o.watchTuning = { resourceVersionWaitMs: 300 },
  });
  try {
    const a = await write(s, "POST", CM, cm("a", { v: "1" }));
    await write(s, "POST", CM, cm("b"));

    await t.step("unset: synthetic ADDED for the current state, then changes", async () => {
      const w = await watch(s, "watch=1");
      assert.deepEqual(summary(await w.take(2)), ["ADDED a", "ADDED b"]);
      await write(s, "POST", CM, cm("c"));
      const ev = await w.next();
      assert.equal(ev?.type, "ADDED");
      assert.equal(ev?.object.metadata.name, "c");
      assert.equal(ev?.object.kind, "ConfigMap");
      assert.equal(ev?.object.apiVersion, "v1");
      assert.match(ev?.object.metadata.resourceVersion, /^[0-9]+$/);
      await w.cancel();
    });

    await t.step("0: synthetic ADDED from the cache, then changes", async () => {
      const w = await watch(s, "watch=true&resourceVersion=0");
      assert.deepEqual(summary(await w.take(3)), ["ADDED a", "ADDED b", "ADDED c"]);
      await write(s, "DELETE", `${CM}/c`);
      const ev = await w.next();
      assert.deepEqual(summary([ev!]), ["DELETED c"]);
      await w.cancel();
    });

    await t.step("N: only changes after N, no synthetic events", async () => {
      const rv = a.metadata.resourceVersion;
      const updated = await write(s, "PUT", `${CM}/a`, cm("a", { v: "2" }));
      const w = await watch(s, `watch=1&resourceVersion=${rv}`);
      // After a's creation: b created, c created, c deleted, a modified.
      const evs = await w.take(4);
      assert.deepEqual(summary(evs), ["ADDED b", "ADDED c", "DELETED c", "MODIFIED a"]);
      assert.equal(evs[3].object.metadata.resourceVersion, updated.metadata.resourceVersion);
      const revs = evs.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(revs, [...revs].sort((x, y) => x - y));
      await w.cancel();
    });

    await t.step("a single object by field selector and by the legacy watch path", async () => {
      const byField = await watch(s, "watch=1&fieldSelector=metadata.name%3Da");
      const legacy = await watch(s, "", "/api/v1/watch/namespaces/default/configmaps/a");
      assert.deepEqual(summary(await byField.take(1)), ["ADDED a"]);
      assert.deepEqual(summary(await legacy.take(1)), ["ADDED a"]);
      await write(s, "PUT", `${CM}/b`, cm("b", { v: "x" }));
      await write(s, "PUT", `${CM}/a`, cm("a", { v: "3" }));
      assert.deepEqual(summary([(await byField.next())!]), ["MODIFIED a"]);
      assert.deepEqual(summary([(await legacy.next())!]), ["MODIFIED a"]);
      await byField.cancel();
      await legacy.cancel();
      const all = await watch(s, "", "/api/v1/watch/configmaps");
      assert.deepEqual(summary(await all.take(2)), ["ADDED a", "ADDED b"]);
      await all.cancel();
    });

    await t.step("too old: an ERROR event with 410 Expired after compaction", async () => {
      const old = (await write(s, "PUT", `${CM}/b`, cm("b", { v: "y" }))).metadata.resourceVersion;
      await write(s, "PUT", `${CM}/b`, cm("b", { v: "z" }));
      const current = await s.server.storage.currentRevision();
      await s.server.storage.compact(current);
      s.server.watchFeed.requestPoll();
      await eventually(
        "the cache noticing the compaction",
        () => s.server.watchFeed.caches.get("/registry/core/configmaps/")!.historyStart >= current,
      );
      const res = await s.fetch(`${CM}?watch=1&resourceVersion=${old}`);
      assert.equal(res.status, 200);
      const evs = await new WatchStream(res).rest();
      assert.equal(evs.length, 1);
      assert.equal(evs[0].type, "ERROR");
      assert.equal(evs[0].object.kind, "Status");
      assert.equal(evs[0].object.code, 410);
      assert.equal(evs[0].object.reason, "Expired");
      assert.equal(evs[0].object.message, `too old resource version: ${old} (${current})`);
    });

    await t.step("future: 504 with Retry-After and Too large resource version", async () => {
      const current = await s.server.storage.currentRevision();
      const res = await s.fetch(`${CM}?watch=1&resourceVersion=${current + 1000}`);
      assert.equal(res.status, 504);
      assert.equal(res.headers.get("retry-after"), "1");
      const status = await res.json();
      assert.match(status.message, /Too large resource version/);
    });

    await t.step("a bad resourceVersion is 400", async () => {
      const res = await s.fetch(`${CM}?watch=1&resourceVersion=abc`);
      assert.equal(res.status, 400);
      await res.body?.cancel();
    });
  } finally {
    await s.close();
  }
});

Deno.test("watch resumes after a dropped connection without loss or repetition", async () => {
  const s = await startTestServer();
  try {
    const w = await watch(s, "watch=1");
    await write(s, "POST", CM, cm("r0"));
    const first = (await w.next())!;
    const last = first.object.metadata.resourceVersion;
    await w.cancel();
    // The server frees the watcher when the client goes away.
    const cache = s.server.watchFeed.caches.get("/registry/core/configmaps/")!;
    await eventually("watcher freed", () => cache.watchers.size === 0);
    for (let i = 1; i <= 5; i++) await write(s, "POST", CM, cm(`r${i}`));
    const resumed = await watch(s, `watch=1&resourceVersion=${last}`);
    const evs = await resumed.take(5);
    assert.deepEqual(summary(evs), ["ADDED r1", "ADDED r2", "ADDED r3", "ADDED r4", "ADDED r5"]);
    await resumed.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("watch timeoutSeconds ends the stream cleanly, with a bookmark before the deadline", async () => {
  const s = await startTestServer([], {
    optionsHook: (o) =>
      o.watchTuning = { bookmarkIntervalMs: 60_000, tickMs: 50, bookmarkBeforeDeadlineMs: 2000 },
  });
  try {
    const w = await watch(s, "watch=1&timeoutSeconds=3&allowWatchBookmarks=true&resourceVersion=0");
    const evs = await w.rest(15_000);
    assert.ok(w.done);
    const bookmarks = evs.filter((e) => e.type === "BOOKMARK");
    assert.equal(bookmarks.length, 1);
    assert.deepEqual(Object.keys(bookmarks[0].object.metadata), ["resourceVersion"]);
    assert.equal(bookmarks[0].object.kind, "ConfigMap");
  } finally {
    await s.close();
  }
});

Deno.test("watch sends periodic bookmarks only when asked", async () => {
  const s = await startTestServer([], {
    optionsHook: (o) => o.watchTuning = { bookmarkIntervalMs: 100, tickMs: 20 },
  });
  try {
    const withBm = await watch(s, "watch=1&allowWatchBookmarks=true&resourceVersion=0");
    const without = await watch(s, "watch=1&resourceVersion=0&timeoutSeconds=4");
    const bm = (await withBm.next())!;
    assert.equal(bm.type, "BOOKMARK");
    const current = s.server.watchFeed.revision;
    assert.ok(Number(bm.object.metadata.resourceVersion) <= current);
    await write(s, "POST", CM, cm("after-bookmark"));
    assert.deepEqual(summary([(await withBm.nextChange())!]), ["ADDED after-bookmark"]);
    const rest = await without.rest(15_000);
    assert.deepEqual(summary(rest), ["ADDED after-bookmark"]);
    await withBm.cancel();
  } finally {
    await s.close();
  }
});
