import assert from "node:assert/strict";
import { WatchCache } from "../../../apiserver/watch/watch_cache.ts";
import { CacheWatcher, errorLine, eventLine } from "../../../apiserver/watch/cache_watcher.ts";
import {
  JSON_WATCH_ENCODER,
  type WatchEventEncoder,
  type WatchEventType,
} from "../../../apiserver/watch/watch_event_encoder.ts";
import type { ChangeEvent } from "../../../apiserver/storage/interface.ts";

const P = "/registry/core/configmaps/";
const decoder = new TextDecoder();

function cache(): WatchCache {
  const c = new WatchCache(P, {
    apiVersion: "v1",
    kind: "ConfigMap",
    fieldsOf: (o) => ({ "metadata.name": o.metadata.name ?? "" }),
  }, { windowMs: 60_000, maxEvents: 100 });
  c.reset([], 0, Date.now());
  return c;
}

function change(type: ChangeEvent["type"], name: string, revision: number): ChangeEvent {
  return {
    type,
    key: `${P}ns/${name}`,
    value: JSON.stringify({ metadata: { name, namespace: "ns" } }),
    revision,
    prevRevision: 0,
  };
}

function watcher(c: WatchCache, opts: Partial<ConstructorParameters<typeof CacheWatcher>[0]> = {}) {
  const w = new CacheWatcher({
    prefix: P,
    bookmarks: true,
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

/** An encoder that counts its calls (a stand-in for Protobuf or Table). */
function countingEncoder(key: string): WatchEventEncoder & { calls: number } {
  const enc = {
    key,
    calls: 0,
    encode(type: WatchEventType, json: string): Uint8Array {
      enc.calls++;
      return new TextEncoder().encode(`${key}|${type}|${JSON.parse(json).metadata.name ?? ""}\n`);
    },
  };
  return enc;
}

async function readAll(w: CacheWatcher): Promise<string> {
  let text = "";
  for await (const chunk of w.stream) text += decoder.decode(chunk);
  return text;
}

Deno.test("eventLine() encodes an event once per wire format and shares the bytes", async () => {
  const c = cache();
  const a = countingEncoder("a");
  const watchers = [
    watcher(c),
    watcher(c),
    watcher(c, { encoder: a }),
    watcher(c, { encoder: a }),
    watcher(c, { encoder: a }),
  ];
  c.apply(change("ADDED", "x", 1), Date.now());
  c.apply(change("MODIFIED", "x", 2), Date.now());
  assert.equal(a.calls, 2, "one encoding per event for three watchers in format a");
  for (const w of watchers) w.close("timeout");
  const texts = await Promise.all(watchers.map(readAll));
  assert.equal(texts[0], texts[1]);
  assert.match(texts[0], /^\{"type":"ADDED","object":\{.*"resourceVersion":"1"/);
  assert.deepEqual(texts.slice(2), Array(3).fill("a|ADDED|x\na|MODIFIED|x\n"));
  // The same bytes, not copies.
  const ring = c.eventsSince(0);
  assert.ok(ring.ok);
  const ev = ring.events[0];
  assert.equal(eventLine(ev, "ADDED"), eventLine(ev, "ADDED", JSON_WATCH_ENCODER));
  assert.equal(eventLine(ev, "ADDED", a), eventLine(ev, "ADDED", a));
  assert.equal(a.calls, 2);
});

Deno.test("CacheWatcher hands an event to a waiting reader and batches what queued meanwhile", async () => {
  const c = cache();
  const w = watcher(c);
  const reader = w.stream.getReader();
  const pending = reader.read();
  c.apply(change("ADDED", "x", 1), Date.now());
  const first = await pending;
  assert.equal(first.done, false);
  assert.equal(decoder.decode(first.value).split("\n").filter(Boolean).length, 1);
  // The reader is busy: these three queue up and arrive as one chunk.
  c.apply(change("MODIFIED", "x", 2), Date.now());
  c.apply(change("MODIFIED", "x", 3), Date.now());
  c.apply(change("DELETED", "x", 4), Date.now());
  assert.equal(w.buffered, 3);
  const batch = await reader.read();
  const lines = decoder.decode(batch.value).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.type), ["MODIFIED", "MODIFIED", "DELETED"]);
  assert.deepEqual(lines.map((l) => l.object.metadata.resourceVersion), ["2", "3", "4"]);
  assert.equal(w.buffered, 0);
  // Closing while the reader waits ends the stream.
  const end = reader.read();
  w.close("timeout");
  assert.equal((await end).done, true);
  assert.equal(c.watchers.size, 0);
});

Deno.test("WatchCache.bookmarkTick() encodes one bookmark per wire format", async () => {
  const c = cache();
  const a = countingEncoder("a");
  const ws = [watcher(c), watcher(c, { encoder: a }), watcher(c, { encoder: a })];
  c.bookmarkTick(7, Date.now(), 0, 0);
  c.bookmarkTick(7, Date.now() + 1, 0, 0);
  for (const w of ws) w.close("timeout");
  const [json, ...others] = await Promise.all(ws.map(readAll));
  assert.equal(a.calls, 2, "one per tick for both watchers in format a");
  assert.deepEqual(others, ["a|BOOKMARK|\na|BOOKMARK|\n", "a|BOOKMARK|\na|BOOKMARK|\n"]);
  const first = JSON.parse(json.split("\n")[0]);
  assert.deepEqual(first, {
    type: "BOOKMARK",
    object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "7" } },
  });
});

Deno.test("errorLine() encodes a Status as an ERROR event in the given format", () => {
  const status = { kind: "Status", code: 410, metadata: { name: "s" } };
  assert.deepEqual(JSON.parse(decoder.decode(errorLine(status))), {
    type: "ERROR",
    object: status,
  });
  assert.equal(decoder.decode(errorLine(status, countingEncoder("b"))), "b|ERROR|s\n");
});

/** A push sink that records what it is given and can be made to report a full connection. */
function recordingSink() {
  const sink = {
    chunks: [] as string[],
    ended: false,
    full: false,
    write(chunk: Uint8Array): boolean {
      sink.chunks.push(decoder.decode(chunk));
      return !sink.full;
    },
    end() {
      sink.ended = true;
    },
  };
  return sink;
}

function names(chunks: string[]): string[] {
  return chunks.join("").split("\n").filter((l) => l).map((l) =>
    `${JSON.parse(l).type} ${JSON.parse(l).object.metadata.name ?? ""}`
  );
}

Deno.test("CacheWatcher.attach() writes events to a push sink as they are offered", async (t) => {
  await t.step("queued before attach, then live, in order", () => {
    const c = cache();
    const w = watcher(c, { bookmarks: false });
    c.apply(change("ADDED", "a", 1), Date.now());
    const sink = recordingSink();
    w.attach(sink);
    assert.deepEqual(names(sink.chunks), ["ADDED a"]);
    c.apply(change("MODIFIED", "a", 2), Date.now());
    c.apply(change("ADDED", "b", 3), Date.now());
    assert.deepEqual(names(sink.chunks), ["ADDED a", "MODIFIED a", "ADDED b"]);
    assert.equal(sink.chunks.length, 3);
    w.close("client");
  });
  await t.step("a full sink: events wait, drain() writes them as one chunk", () => {
    const c = cache();
    const w = watcher(c, { bookmarks: false });
    const sink = recordingSink();
    w.attach(sink);
    sink.full = true;
    c.apply(change("ADDED", "a", 1), Date.now());
    c.apply(change("ADDED", "b", 2), Date.now());
    c.apply(change("ADDED", "c", 3), Date.now());
    assert.equal(sink.chunks.length, 1);
    assert.equal(w.buffered, 2);
    sink.full = false;
    w.drain();
    assert.equal(sink.chunks.length, 2);
    assert.deepEqual(names(sink.chunks), ["ADDED a", "ADDED b", "ADDED c"]);
    w.close("client");
  });
  await t.step(
    "a sink that stays full past the buffer evicts the watcher and ends the body",
    () => {
      const c = cache();
      const w = watcher(c, { bookmarks: false, bufferSize: 2 });
      const sink = recordingSink();
      w.attach(sink);
      sink.full = true;
      for (let i = 1; i <= 4; i++) c.apply(change("ADDED", `o${i}`, i), Date.now());
      assert.equal(w.closedBy, "evicted");
      assert.ok(sink.ended);
      assert.equal(c.watchers.size, 0);
    },
  );
  await t.step("a backlog past the byte bound evicts the watcher and drops it", () => {
    const c = cache();
    const w = watcher(c, { bookmarks: false, bufferBytes: 4096 });
    const sink = recordingSink();
    w.attach(sink);
    sink.full = true;
    c.apply(change("ADDED", "first", 1), Date.now());
    let n = 1;
    while (!w.closed && n < 1000) c.apply(change("ADDED", `o${n}`, ++n), Date.now());
    assert.equal(w.closedBy, "evicted");
    // Each line is about 110 bytes: it ended near 4 KiB, far before its 100-event bound.
    assert.ok(n > 30 && n < 50, `evicted after ${n} events`);
    assert.equal(w.buffered, 0);
    assert.ok(sink.ended);
  });
  await t.step("an event waiting longer than maxLagMs evicts the watcher", () => {
    const c = cache();
    let clock = 1_000_000;
    const w = watcher(c, { bookmarks: false, maxLagMs: 2000, now: () => clock });
    const sink = recordingSink();
    w.attach(sink);
    sink.full = true;
    c.apply(change("ADDED", "a", 1), Date.now());
    c.apply(change("ADDED", "b", 2), Date.now());
    clock += 1500;
    c.apply(change("ADDED", "c", 3), Date.now());
    assert.equal(w.closedBy, undefined);
    sink.full = false;
    w.drain(); // b and c written: the clock restarts with the next queued event
    sink.full = true;
    c.apply(change("ADDED", "d", 4), Date.now());
    c.apply(change("ADDED", "e", 5), Date.now());
    clock += 1500;
    c.apply(change("ADDED", "f", 6), Date.now());
    assert.equal(w.closedBy, undefined);
    clock += 600;
    c.apply(change("ADDED", "g", 7), Date.now());
    assert.equal(w.closedBy, "evicted");
    assert.deepEqual(names(sink.chunks), ["ADDED a", "ADDED b", "ADDED c", "ADDED d"]);
  });
  await t.step("a drained backlog is written in chunks of at most 64 KiB", () => {
    const c = cache();
    const w = watcher(c, { bookmarks: false, bufferSize: 10_000 });
    const sink = recordingSink();
    w.attach(sink);
    sink.full = true;
    c.apply(change("ADDED", "first", 1), Date.now());
    for (let i = 2; i <= 2000; i++) c.apply(change("ADDED", `o${i}`, i), Date.now());
    sink.full = false;
    w.drain();
    const sizes = sink.chunks.slice(1).map((ch) => new TextEncoder().encode(ch).length);
    assert.ok(sizes.length > 2, `${sizes.length} chunks`);
    assert.ok(sizes.every((n) => n <= 64 * 1024), `chunk sizes ${sizes}`);
    assert.equal(names(sink.chunks).length, 2000);
    assert.deepEqual(names(sink.chunks).slice(-1), ["ADDED o2000"]);
    w.close("client");
  });
  await t.step("a timeout writes what is queued, then ends", () => {
    const c = cache();
    const w = watcher(c, { bookmarks: false });
    const sink = recordingSink();
    w.attach(sink);
    sink.full = true;
    c.apply(change("ADDED", "a", 1), Date.now());
    c.apply(change("ADDED", "b", 2), Date.now());
    w.close("timeout");
    assert.ok(!sink.ended);
    sink.full = false;
    w.drain();
    assert.deepEqual(names(sink.chunks), ["ADDED a", "ADDED b"]);
    assert.ok(sink.ended);
  });
  await t.step("initial events come before live ones", () => {
    const c = cache();
    c.apply(change("ADDED", "x", 1), Date.now());
    const w = watcher(c, { bookmarks: false, initial: c.snapshot(P) });
    c.apply(change("ADDED", "y", 2), Date.now());
    const sink = recordingSink();
    w.attach(sink);
    c.apply(change("ADDED", "z", 3), Date.now());
    assert.deepEqual(names(sink.chunks), ["ADDED x", "ADDED y", "ADDED z"]);
    w.cancel();
    assert.equal(w.closedBy, "client");
  });
});
