import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { WatchStream } from "../apiserver/watch/watch_stream.ts";
import { CM, cm, type Json, summary, watch, write } from "./_watch_helpers.ts";
import { eventually } from "../support/eventually.ts";

Deno.test("watch with sendInitialEvents streams the state, then the initial-events-end bookmark", async (t) => {
  const s = await startTestServer(["--feature-gates=WatchList=true"]);
  try {
    await write(s, "POST", CM, cm("one"));
    await write(s, "POST", CM, cm("two"));
    for (const rv of ["", "0"]) {
      await t.step(`resourceVersion=${JSON.stringify(rv)}`, async () => {
        const w = await watch(
          s,
          `watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}`,
        );
        const evs = await w.take(rv === "" ? 3 : 4);
        const names = rv === ""
          ? ["ADDED one", "ADDED two"]
          : ["ADDED liveunset", "ADDED one", "ADDED two"];
        assert.deepEqual(summary(evs), [...names, "BOOKMARK"]);
        const meta = evs[evs.length - 1].object.metadata;
        assert.deepEqual(meta.annotations, { "k8s.io/initial-events-end": "true" });
        const newest = Math.max(
          ...evs.slice(0, -1).map((e) => Number(e.object.metadata.resourceVersion)),
        );
        assert.ok(Number(meta.resourceVersion) >= newest);
        await write(s, "POST", CM, cm(`live${rv || "unset"}`));
        assert.deepEqual(summary([(await w.nextChange())!]), [`ADDED live${rv || "unset"}`]);
        await w.cancel();
      });
    }
    await t.step("sendInitialEvents=false with a resourceVersion starts there", async () => {
      const rv = (await write(s, "POST", CM, cm("three"))).metadata.resourceVersion;
      await write(s, "POST", CM, cm("four"));
      const w = await watch(
        s,
        `watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}`,
      );
      assert.deepEqual(summary(await w.take(1)), ["ADDED four"]);
      await w.cancel();
    });
    await t.step("without resourceVersionMatch=NotOlderThan it is 422", async () => {
      const res = await s.fetch(`${CM}?watch=1&sendInitialEvents=true`);
      assert.equal(res.status, 422);
      await res.body?.cancel();
    });
  } finally {
    await s.close();
  }
});

Deno.test("sendInitialEvents is refused with 422 while the WatchList gate is off", async () => {
  const s = await startTestServer();
  try {
    const res = await s.fetch(
      `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(res.status, 422);
    assert.match((await res.json()).message, /WatchList feature gate/);
  } finally {
    await s.close();
  }
});

Deno.test("watch with selectors sends ADDED when an object starts matching and DELETED when it stops", async () => {
  const s = await startTestServer();
  try {
    const w = await watch(s, "watch=1&labelSelector=app%3Dweb");
    const f = await watch(s, "watch=1&fieldSelector=metadata.name%3Dx");
    await write(s, "POST", CM, cm("x"));
    await write(s, "PUT", `${CM}/x`, cm("x", { a: "1" }, { app: "web" }));
    await write(s, "PUT", `${CM}/x`, cm("x", { a: "2" }, { app: "web" }));
    const stop = await write(s, "PUT", `${CM}/x`, cm("x", { a: "3" }, { app: "db" }));
    await write(s, "POST", CM, cm("y", {}, { app: "web" }));
    await write(s, "DELETE", `${CM}/y`);
    const evs = await w.take(5);
    assert.deepEqual(summary(evs), [
      "ADDED x",
      "MODIFIED x",
      "DELETED x",
      "ADDED y",
      "DELETED y",
    ]);
    // The DELETED of a transition carries the last matching state at the change's version.
    assert.equal(evs[2].object.metadata.labels.app, "web");
    assert.equal(evs[2].object.metadata.resourceVersion, stop.metadata.resourceVersion);
    assert.deepEqual(summary(await f.take(4)), [
      "ADDED x",
      "MODIFIED x",
      "MODIFIED x",
      "MODIFIED x",
    ]);
    await w.cancel();
    await f.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("a watcher that falls behind is closed without slowing writers or other watchers", async () => {
  const s = await startTestServer([], {
    optionsHook: (o) => o.watchTuning = { watcherBufferSize: 8 },
  });
  try {
    const fast = await watch(s, "watch=1&resourceVersion=0");
    const slowRes = await s.fetch(`${CM}?watch=1&resourceVersion=0`);
    assert.equal(slowRes.status, 200);
    const cache = s.server.watchFeed.caches.get("/registry/core/configmaps/")!;
    await eventually("two watchers", () => cache.watchers.size === 2);
    const big = "x".repeat(256 * 1024);
    const n = 60;
    // Read the fast watcher while writing; the slow one is never read.
    const reading = fast.take(n, 60_000);
    for (let i = 0; i < n; i++) await write(s, "POST", CM, cm(`big${i}`, { big }));
    const got = await reading;
    assert.equal(new Set(got.map((e) => e.object.metadata.name)).size, n);
    await eventually("the slow watcher evicted", () => cache.watchers.size === 1);
    // The slow client sees its stream end early (it resumes from its last resourceVersion).
    const slow = new WatchStream(slowRes);
    const seen = await slow.rest(30_000);
    assert.ok(seen.length < n, `slow watcher got ${seen.length} of ${n}`);
    await fast.cancel();
  } finally {
    await s.close();
  }
});

Deno.test("lists with resourceVersion=0 and NotOlderThan are served from the watch cache", async () => {
  const s = await startTestServer();
  try {
    const created = await write(s, "POST", CM, cm("listed", {}, { k: "v" }));
    const res = await s.fetch(`${CM}?resourceVersion=0&labelSelector=k%3Dv`);
    const list = await res.json();
    assert.equal(res.status, 200);
    assert.deepEqual(list.items.map((i: Json) => i.metadata.name), ["listed"]);
    assert.equal(list.items[0].kind, "ConfigMap");
    const listRv = Number(list.metadata.resourceVersion);
    assert.ok(listRv >= Number(created.metadata.resourceVersion));
    assert.ok(listRv <= s.server.watchFeed.revision);
    const rv = created.metadata.resourceVersion;
    const nb = await s.fetch(`${CM}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.equal(nb.status, 200);
    assert.ok(Number((await nb.json()).metadata.resourceVersion) >= Number(rv));
    const future = await s.fetch(
      `${CM}?resourceVersion=${Number(rv) + 1000}&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(future.status, 504);
    await future.body?.cancel();
  } finally {
    await s.close();
  }
});
