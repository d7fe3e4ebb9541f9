/**
 * Watch in Protobuf (`;stream=watch` frames) and Table formats over HTTPS: the events are
 * those of a JSON watch (initial events, the initial-events-end bookmark, selector-driven
 * ADDED and DELETED, ERROR Statuses), and every watcher of a format gets the very bytes the
 * watch cache encoded once for the event.
 */
import assert from "node:assert/strict";
import { decodeWatchEvent, type WatchEventJson } from "../../shared/codec/protobuf/mod.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { CM, cm, type Json, write } from "./_watch_helpers.ts";

const PB = "application/vnd.kubernetes.protobuf;stream=watch";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const PREFIX = "/registry/core/configmaps/";

/** One event as received, with the exact bytes that carried it. */
interface Received {
  type: string;
  object: Json;
  raw: Uint8Array;
}

/** Reads a watch body event by event: Protobuf frames or JSON lines, keeping each one's bytes. */
class RawWatch {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #protobuf: boolean;
  #buf: Uint8Array = new Uint8Array(0);
  #done = false;

  constructor(res: Response, protobuf: boolean) {
    this.#reader = res.body!.getReader();
    this.#protobuf = protobuf;
  }

  /** The next `n` events; throws when they do not arrive within `timeoutMs`. */
  async take(n: number, timeoutMs = 20_000): Promise<Received[]> {
    const out: Received[] = [];
    const deadline = Date.now() + timeoutMs;
    while (out.length < n) {
      const ev = this.#split();
      if (ev) {
        out.push(ev);
        continue;
      }
      if (this.#done) throw new Error(`stream ended after ${out.length} of ${n} events`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`only ${out.length} of ${n} events within ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), left));
      const read = await Promise.race([this.#reader.read(), timeout]).finally(() =>
        clearTimeout(timer)
      );
      if (!read) continue;
      if (read.done) this.#done = true;
      else this.#buf = concat(this.#buf, read.value);
    }
    return out;
  }

  /** Reads until the server ends the stream. */
  async rest(timeoutMs = 20_000): Promise<Received[]> {
    const out: Received[] = [];
    const deadline = Date.now() + timeoutMs;
    while (!this.#done) {
      if (Date.now() > deadline) throw new Error("the stream did not end");
      const read = await this.#reader.read();
      if (read.done) this.#done = true;
      else this.#buf = concat(this.#buf, read.value);
    }
    for (let ev = this.#split(); ev; ev = this.#split()) out.push(ev);
    assert.equal(this.#buf.length, 0, "the stream ended inside an event");
    return out;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #split(): Received | undefined {
    const buf = this.#buf;
    let end: number;
    let ev: WatchEventJson;
    if (this.#protobuf) {
      if (buf.length < 4) return undefined;
      const len = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(0, false);
      end = 4 + len;
      if (buf.length < end) return undefined;
      ev = decodeWatchEvent(buf.subarray(4, end));
    } else {
      const nl = buf.indexOf(10);
      if (nl < 0) return undefined;
      end = nl + 1;
      ev = JSON.parse(new TextDecoder().decode(buf.subarray(0, nl)));
    }
    this.#buf = buf.slice(end);
    return { type: ev.type, object: ev.object, raw: buf.slice(0, end) };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function open(t: TestServer, query: string, accept: string): Promise<RawWatch> {
  const res = await t.fetch(`${CM}?${query}`, { headers: { accept } });
  assert.equal(res.status, 200, `watch ${query} (${accept}): ${res.status}`);
  const protobuf = accept.startsWith("application/vnd.kubernetes.protobuf");
  assert.equal(res.headers.get("content-type"), protobuf ? PB : "application/json");
  return new RawWatch(res, protobuf);
}

/** `"<type> <name>"` of an event whose object is a ConfigMap or a one-row Table. */
function what(e: Received): string {
  const o = e.object;
  const name = o.kind === "Table" ? o.rows[0]?.cells[0] : o.metadata?.name;
  return `${e.type} ${name ?? ""}`.trim();
}

Deno.test("watch in Protobuf and Table formats: same events as JSON, bytes encoded once per event", async (t) => {
  const s = await startTestServer(["--feature-gates=WatchList=true"]);
  const open_: RawWatch[] = [];
  try {
    await write(s, "POST", CM, cm("a", { k: "v" }, { x: "1" }));
    const created = await write(s, "POST", CM, cm("b", { k: "v" }));
    const query = "watch=1&labelSelector=x%3D1&allowWatchBookmarks=true&sendInitialEvents=true" +
      "&resourceVersionMatch=NotOlderThan";
    const cache = s.server.watchFeed.caches.get(PREFIX)!;
    const before = cache.watchers.size;
    const pbs = [await open(s, query, PB), await open(s, query, PB), await open(s, query, PB)];
    const tables = [await open(s, query, TABLE), await open(s, query, TABLE)];
    const json = await open(s, query, "application/json");
    open_.push(...pbs, ...tables, json);
    await eventually("the watchers registered", () => cache.watchers.size >= before + 6);
    const b = await write(s, "PUT", `${CM}/b`, cm("b", { k: "v" }, { x: "1" }));
    const a = await write(s, "PUT", `${CM}/a`, cm("a", { k: "v" }, { x: "2" }));
    const expected = ["ADDED a", "BOOKMARK", "ADDED b", "DELETED a"];

    const jsonEvents = await json.take(4);
    const pbEvents = await Promise.all(pbs.map((w) => w.take(4)));
    const tableEvents = await Promise.all(tables.map((w) => w.take(4)));

    // Each watcher's initial-events bookmark carries the revision current when it started;
    // background writes elsewhere in the server may move it between two watchers' starts.
    const bookmarkInRange = (rv: string) => {
      assert.ok(Number(rv) >= Number(created.metadata.resourceVersion), rv);
      assert.ok(Number(rv) < Number(b.metadata.resourceVersion), rv);
    };
    const withoutBookmarkRv = (e: { type: string; object: Record<string, unknown> }) => {
      if (e.type !== "BOOKMARK") return { type: e.type, object: e.object };
      const { resourceVersion: _rv, ...meta } = e.object.metadata as Record<string, unknown>;
      return { type: e.type, object: { ...e.object, metadata: meta } };
    };

    await t.step("JSON: the reference", () => {
      assert.deepEqual(jsonEvents.map(what), expected);
      assert.deepEqual(jsonEvents[1].object.metadata.annotations, {
        "k8s.io/initial-events-end": "true",
      });
      assert.equal(jsonEvents[3].object.metadata.resourceVersion, a.metadata.resourceVersion);
      bookmarkInRange(jsonEvents[1].object.metadata.resourceVersion);
    });

    await t.step("Protobuf frames carry the JSON events' objects", () => {
      for (const evs of pbEvents) {
        assert.deepEqual(evs.map(withoutBookmarkRv), jsonEvents.map(withoutBookmarkRv));
        bookmarkInRange(evs[1].object.metadata.resourceVersion);
      }
    });

    await t.step("Tables: one row per object, an empty Table for the bookmark", () => {
      for (const evs of tableEvents) {
        assert.deepEqual(evs.map(what), expected);
        for (const e of evs) {
          assert.equal(e.object.kind, "Table");
          assert.equal(e.object.apiVersion, "meta.k8s.io/v1");
          assert.ok(e.object.columnDefinitions.length > 0);
        }
        assert.deepEqual(evs[1].object.rows, []);
        assert.deepEqual(Object.keys(evs[1].object.metadata), ["resourceVersion"]);
        bookmarkInRange(evs[1].object.metadata.resourceVersion);
        assert.equal(evs[2].object.metadata.resourceVersion, b.metadata.resourceVersion);
        assert.equal(evs[2].object.rows[0].object.kind, "PartialObjectMetadata");
        assert.deepEqual(evs[3].object.rows[0].object.metadata.labels, { x: "1" });
        assert.equal(evs[3].object.metadata.resourceVersion, a.metadata.resourceVersion);
      }
    });

    await t.step("every watcher of a format got the bytes the cache encoded once", () => {
      const since = cache.eventsSince(Number(b.metadata.resourceVersion) - 1);
      assert.ok(since.ok);
      const evs = since.events;
      assert.deepEqual(evs.map((e) => e.revision), [
        Number(b.metadata.resourceVersion),
        Number(a.metadata.resourceVersion),
      ]);
      // Encoded lines are forgotten after a while; on a very slow machine there is nothing to see.
      if (evs.some((e) => e.lines === undefined)) return;
      const cases: [string, Received[][]][] = [
        ["protobuf\0ADDED", pbEvents.map((x) => [x[2]])],
        ["protobuf\0DELETED", pbEvents.map((x) => [x[3]])],
        ["table;v1;Metadata\0ADDED", tableEvents.map((x) => [x[2]])],
        ["table;v1;Metadata\0DELETED", tableEvents.map((x) => [x[3]])],
        ["ADDED", [[jsonEvents[2]]]],
      ];
      for (const [key, got] of cases) {
        const ev = key.endsWith("ADDED") ? evs[0] : evs[1];
        const shared = ev.lines?.[key];
        assert.ok(shared, `the cached ${JSON.stringify(key)} event`);
        for (const [e] of got) assert.deepEqual(e.raw, shared, key);
      }
    });

    await t.step("an ERROR event carries the Status in each format", async () => {
      const old = Number(b.metadata.resourceVersion) - 1;
      const current = await s.server.storage.currentRevision();
      await s.server.storage.compact(current);
      s.server.watchFeed.requestPoll();
      await eventually("the cache noticing the compaction", () => cache.historyStart >= current);
      for (const accept of [PB, TABLE, "application/json"]) {
        const w = await open(s, `watch=1&resourceVersion=${old}`, accept);
        const evs = await w.rest();
        assert.deepEqual(evs.map((e) => e.type), ["ERROR"], accept);
        assert.equal(evs[0].object.kind, "Status");
        assert.equal(evs[0].object.code, 410);
        assert.equal(evs[0].object.reason, "Expired");
        assert.match(evs[0].object.message, /^too old resource version: /);
      }
    });
  } finally {
    for (const w of open_) await w.cancel();
    await s.close();
  }
});
