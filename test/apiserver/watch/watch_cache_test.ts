import assert from "node:assert/strict";
import { WatchCache } from "../../../apiserver/watch/watch_cache.ts";
import { CacheWatcher } from "../../../apiserver/watch/cache_watcher.ts";
import type { ChangeEvent } from "../../../apiserver/storage/interface.ts";
import { WatchStream } from "./watch_stream.ts";

const P = "/registry/core/configmaps/";

function cache(maxEvents = 100): WatchCache {
  return new WatchCache(P, {
    apiVersion: "v1",
    kind: "ConfigMap",
    fieldsOf: (o) => ({ "metadata.name": o.metadata.name ?? "" }),
  }, { windowMs: 60_000, maxEvents });
}

function value(name: string, labels: Record<string, string> = {}): string {
  return JSON.stringify({ metadata: { name, namespace: "ns", labels } });
}

function change(
  type: ChangeEvent["type"],
  name: string,
  revision: number,
  labels: Record<string, string> = {},
): ChangeEvent {
  return { type, key: `${P}ns/${name}`, value: value(name, labels), revision, prevRevision: 0 };
}

function watcher(c: WatchCache, opts: Partial<ConstructorParameters<typeof CacheWatcher>[0]> = {}) {
  const w = new CacheWatcher({
    prefix: P,
    bookmarks: false,
    bufferSize: 100,
    apiVersion: "v1",
    kind: "ConfigMap",
    deadline: Date.now() + 60_000,
    now: Date.now,
    onClose: (x) => c.removeWatcher(x),
    ...opts,
  });
  c.addWatcher(w);
  return w;
}

Deno.test("WatchCache.eventsSince() answers from the ring and reports the oldest servable version", async (t) => {
  const c = cache(3);
  c.reset([], 10, Date.now());
  for (let r = 11; r <= 15; r++) {
    c.apply(change(r === 11 ? "ADDED" : "MODIFIED", "a", r), Date.now());
  }
  const cases: [number, number[] | number][] = [
    [15, []],
    [13, [14, 15]],
    [12, [13, 14, 15]],
    [11, 12],
    [5, 12],
  ];
  for (const [rv, want] of cases) {
    await t.step(`from ${rv}`, () => {
      const got = c.eventsSince(rv);
      if (typeof want === "number") assert.deepEqual(got, { ok: false, oldest: want });
      else assert.deepEqual(got.ok && got.events.map((e) => e.revision), want);
    });
  }
  c.trim(Date.now(), 14);
  assert.equal(c.historyStart, 14);
  assert.deepEqual(c.eventsSince(13), { ok: false, oldest: 14 });
});

Deno.test("CacheWatcher.offer() turns selector transitions into ADDED and DELETED", async () => {
  const c = cache();
  c.reset([], 0, Date.now());
  const w = watcher(c, { matches: (o) => o.labels.app === "web", deadline: Date.now() + 60_000 });
  c.apply(change("ADDED", "x", 1), Date.now());
  c.apply(change("MODIFIED", "x", 2, { app: "web" }), Date.now());
  c.apply(change("MODIFIED", "x", 3, { app: "web", v: "2" }), Date.now());
  c.apply(change("MODIFIED", "x", 4, { app: "db" }), Date.now());
  c.apply(change("DELETED", "x", 5, { app: "db" }), Date.now());
  w.close("timeout");
  const evs = await new WatchStream(new Response(w.stream)).rest();
  assert.deepEqual(evs.map((e) => [e.type, e.object.metadata.resourceVersion]), [
    ["ADDED", "2"],
    ["MODIFIED", "3"],
    ["DELETED", "4"],
  ]);
  assert.equal(evs[2].object.metadata.labels.app, "web");
  assert.equal(c.watchers.size, 0);
});

Deno.test("CacheWatcher closes itself when its buffer overflows", () => {
  const c = cache();
  c.reset([], 0, Date.now());
  const slow = watcher(c, { bufferSize: 3 });
  const other = watcher(c, { bufferSize: 100 });
  for (let r = 1; r <= 5; r++) c.apply(change("ADDED", `o${r}`, r), Date.now());
  assert.equal(slow.closedBy, "evicted");
  assert.equal(other.buffered, 5);
  assert.deepEqual([...c.watchers], [other]);
  other.close("client");
});
