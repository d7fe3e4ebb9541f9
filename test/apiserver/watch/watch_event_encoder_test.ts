import assert from "node:assert/strict";
import { CacheWatcher, errorLine, eventLine } from "../../../apiserver/watch/cache_watcher.ts";
import { WatchCache } from "../../../apiserver/watch/watch_cache.ts";
import {
  bookmarkObjectJson,
  JSON_WATCH_ENCODER,
  objectWatchEncoder,
  PROTOBUF_WATCH_ENCODER,
  type WatchEventEncoder,
  type WatchEventType,
} from "../../../apiserver/watch/watch_event_encoder.ts";
import type { ChangeEvent } from "../../../apiserver/storage/interface.ts";
import { encodeWatchFrame, WatchFrameDecoder } from "../../../shared/codec/protobuf/mod.ts";
import { parseLabelSelector } from "../../../shared/selectors/label_selector.ts";

const P = "/registry/core/configmaps/";
const decoder = new TextDecoder();

const CM_JSON = JSON.stringify({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name: "a", namespace: "ns", resourceVersion: "5", labels: { x: "1" } },
  data: { k: "v" },
});
const STATUS = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "too old resource version: 1 (5)",
  reason: "Expired",
  code: 410,
};

function cache(): WatchCache {
  const c = new WatchCache(P, {
    apiVersion: "v1",
    kind: "ConfigMap",
    fieldsOf: (o) => ({ "metadata.name": o.metadata.name ?? "" }),
  }, { windowMs: 60_000, maxEvents: 100 });
  c.reset([], 0, Date.now());
  return c;
}

function change(
  type: ChangeEvent["type"],
  name: string,
  revision: number,
  labels: Record<string, string> = {},
): ChangeEvent {
  return {
    type,
    key: `${P}ns/${name}`,
    value: JSON.stringify({ metadata: { name, namespace: "ns", labels }, data: { k: "v" } }),
    revision,
    prevRevision: 0,
  };
}

function watcher(
  c: WatchCache,
  opts: Partial<ConstructorParameters<typeof CacheWatcher>[0]> = {},
): CacheWatcher {
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

async function chunks(w: CacheWatcher): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const chunk of w.stream) out.push(chunk);
  return out;
}

function frames(bytes: Uint8Array[]): { type: string; object: Record<string, unknown> }[] {
  const dec = new WatchFrameDecoder();
  const out = bytes.flatMap((b) => dec.push(b));
  dec.end();
  return out;
}

/** The Protobuf encoder, counting its calls (same key, so the cache treats it as Protobuf). */
function countingProtobuf(): WatchEventEncoder & { calls: number } {
  const enc = {
    key: PROTOBUF_WATCH_ENCODER.key,
    calls: 0,
    encode(type: WatchEventType, json: string): Uint8Array {
      enc.calls++;
      return PROTOBUF_WATCH_ENCODER.encode(type, json);
    },
  };
  return enc;
}

Deno.test("PROTOBUF_WATCH_ENCODER writes the frame of each event's object", async (t) => {
  const cases: [WatchEventType, string][] = [
    ["ADDED", CM_JSON],
    ["DELETED", CM_JSON],
    ["BOOKMARK", bookmarkObjectJson("v1", "ConfigMap", 9)],
    ["BOOKMARK", bookmarkObjectJson("v1", "ConfigMap", 9, true)],
    ["ERROR", JSON.stringify(STATUS)],
  ];
  assert.equal(PROTOBUF_WATCH_ENCODER.key, "protobuf");
  for (const [type, json] of cases) {
    await t.step(`${type} ${json.slice(0, 60)}`, () => {
      const bytes = PROTOBUF_WATCH_ENCODER.encode(type, json);
      // The same bytes the per-watcher re-encoding used to write.
      assert.deepEqual(bytes, encodeWatchFrame(type, JSON.parse(json)));
      const [ev] = frames([bytes]);
      assert.equal(ev.type, type);
      assert.deepEqual(ev.object, JSON.parse(json));
    });
  }
});

Deno.test("objectWatchEncoder() converts every object but an ERROR event's Status", async (t) => {
  const seen: string[] = [];
  const enc = objectWatchEncoder({
    key: "upper",
    framing: "json",
    convert: (type, o) => {
      seen.push(type);
      return { kind: "Wrapped", type, inner: o };
    },
  });
  assert.equal(enc.key, "upper");
  for (const type of ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"] as const) {
    await t.step(type, () => {
      const text = decoder.decode(enc.encode(type, CM_JSON));
      assert.equal(
        text,
        JSON.stringify({ type, object: { kind: "Wrapped", type, inner: JSON.parse(CM_JSON) } }) +
          "\n",
      );
    });
  }
  await t.step("ERROR", () => {
    const text = decoder.decode(enc.encode("ERROR", JSON.stringify(STATUS)));
    assert.equal(text, decoder.decode(errorLine(STATUS)));
    assert.deepEqual(seen, ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);
  });
  await t.step("without convert, JSON framing writes what JSON_WATCH_ENCODER writes", () => {
    const plain = objectWatchEncoder({ key: "plain", framing: "json" });
    assert.deepEqual(plain.encode("ADDED", CM_JSON), JSON_WATCH_ENCODER.encode("ADDED", CM_JSON));
  });
});

Deno.test("objectWatchEncoder() turns an event it cannot encode into an ERROR event", async (t) => {
  const cases: {
    name: string;
    enc: WatchEventEncoder;
    json: string;
    message: RegExp;
    protobuf: boolean;
  }[] = [
    {
      name: "convert throws (JSON lines)",
      enc: objectWatchEncoder({
        key: "broken",
        framing: "json",
        convert: () => {
          throw new Error("no columns");
        },
      }),
      json: CM_JSON,
      message: /encoding a ADDED watch event as broken: no columns/,
      protobuf: false,
    },
    {
      name: "a kind without a Protobuf message",
      enc: PROTOBUF_WATCH_ENCODER,
      json: JSON.stringify({ kind: "Widget", apiVersion: "example.com/v1", metadata: {} }),
      message: /encoding a ADDED watch event as protobuf/,
      protobuf: true,
    },
    {
      name: "text that is not JSON",
      enc: PROTOBUF_WATCH_ENCODER,
      json: "{not json",
      message: /encoding a ADDED watch event as protobuf/,
      protobuf: true,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const bytes = c.enc.encode("ADDED", c.json);
      const ev = c.protobuf ? frames([bytes])[0] : JSON.parse(decoder.decode(bytes));
      assert.equal(ev.type, "ERROR");
      assert.equal(ev.object.kind, "Status");
      assert.equal(ev.object.code, 500);
      assert.equal(ev.object.reason, "InternalError");
      assert.match(ev.object.message, c.message);
    });
  }
});

Deno.test("PROTOBUF_WATCH_ENCODER bytes of one event are produced once for N watchers", async () => {
  const N = 8;
  const c = cache();
  const pb = countingProtobuf();
  const watchers = Array.from({ length: N }, () => watcher(c, { encoder: pb }));
  const json = watcher(c);
  c.apply(change("ADDED", "x", 1), Date.now());
  assert.equal(pb.calls, 1, `one Protobuf encoding for ${N} watchers`);
  for (const w of [...watchers, json]) w.close("timeout");
  const got = await Promise.all(watchers.map(chunks));
  const ring = c.eventsSince(0);
  assert.ok(ring.ok);
  const shared = eventLine(ring.events[0], "ADDED", pb);
  assert.equal(pb.calls, 1, "eventLine() returns the cached frame");
  for (const g of got) {
    assert.equal(g.length, 1);
    // The very same Uint8Array, not an equal copy.
    assert.equal(g[0], shared);
  }
  const [ev] = frames(got[0]);
  assert.equal(ev.type, "ADDED");
  assert.equal((ev.object.metadata as { name: string }).name, "x");
  // The JSON watcher is unaffected and gets its own line.
  const text = decoder.decode((await chunks(json))[0]);
  assert.equal(JSON.parse(text).object.metadata.name, "x");
  assert.deepEqual(Object.keys(ring.events[0].lines ?? {}).sort(), ["ADDED", "protobuf\0ADDED"]);
});

Deno.test("PROTOBUF_WATCH_ENCODER watchers get selector transitions and bookmarks as JSON ones do", async () => {
  const c = cache();
  c.apply(change("ADDED", "a", 1, { x: "1" }), Date.now());
  const labels = parseLabelSelector("x=1");
  const matches = (o: { labels: Readonly<Record<string, string>> }) => labels.matches(o.labels);
  const initial = c.snapshot(P, matches);
  const opts = { matches, initial, initialEventsEnd: 1 };
  const pbs = [watcher(c, { ...opts, encoder: PROTOBUF_WATCH_ENCODER })];
  pbs.push(watcher(c, { ...opts, encoder: PROTOBUF_WATCH_ENCODER }));
  const js = watcher(c, opts);
  c.apply(change("ADDED", "b", 2), Date.now()); // not selected
  c.apply(change("MODIFIED", "b", 3, { x: "1" }), Date.now()); // starts matching: ADDED
  c.apply(change("MODIFIED", "a", 4, { x: "2" }), Date.now()); // stops matching: DELETED
  c.apply(change("DELETED", "b", 5, { x: "1" }), Date.now());
  c.bookmarkTick(5, Date.now(), 0, 0);
  for (const w of [...pbs, js]) w.close("timeout");
  const [pb1, pb2] = await Promise.all(pbs.map(async (w) => frames(await chunks(w))));
  const jsonEvents = decoder.decode(
    (await chunks(js)).reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
  ).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(
    jsonEvents.map((e) => `${e.type} ${e.object.metadata.name ?? ""}`),
    ["ADDED a", "BOOKMARK ", "ADDED b", "DELETED a", "DELETED b", "BOOKMARK "],
  );
  // Protobuf carries exactly the JSON events' objects.
  assert.deepEqual(pb1, jsonEvents);
  assert.deepEqual(pb2, jsonEvents);
  assert.deepEqual(jsonEvents[1].object.metadata, {
    resourceVersion: "1",
    annotations: { "k8s.io/initial-events-end": "true" },
  });
  assert.equal(jsonEvents[3].object.metadata.resourceVersion, "4");
});
