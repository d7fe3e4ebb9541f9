/**
 * The storage contract suite: the behaviour every {@link Storage} backend must show, as
 * `Deno.test`s registered for one backend by {@link storageContract}. Runners live next to it
 * (one per backend and transport).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type ChangeEvent,
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  type KeyValue,
  RevisionConflictError,
  type Storage,
} from "../../../apiserver/storage/interface.ts";

/** One fresh, empty store that can be opened (and reopened) and is removed by cleanup. */
export interface StorageHarness {
  /** Opens the store; calling it again after closing reopens the same data. */
  open(): Promise<Storage>;
  /** Removes everything the harness created. */
  cleanup(): Promise<void>;
}

/** Options of {@link storageContract}. */
export interface StorageContractOptions {
  /** Skip every test (e.g. the backend's server is not available); the reason is printed. */
  ignore?: string | false;
}

/**
 * Registers the contract tests for one backend, named `<name>: <symbol>() does X`.
 * `newHarness` is called once per test and must return an empty store.
 */
export function storageContract(
  name: string,
  newHarness: () => Promise<StorageHarness>,
  options: StorageContractOptions = {},
): void {
  const ignore = typeof options.ignore === "string";
  if (ignore) console.warn(`skipping storage contract for ${name}: ${options.ignore}`);
  const test = (
    title: string,
    fn: (s: Storage, h: StorageHarness, t: Deno.TestContext) => Promise<void>,
  ) =>
    Deno.test({
      name: `${name}: ${title}`,
      ignore,
      fn: async (t) => {
        const harness = await newHarness();
        const storage = await harness.open();
        try {
          await fn(storage, harness, t);
        } finally {
          await storage.close();
          await harness.cleanup();
        }
      },
    });

  test("create() stores a key and get() reads it at the next revision", async (s) => {
    assert.equal(await s.currentRevision(), 0);
    assert.equal(await s.compactedRevision(), 0);
    await s.ping();
    const a = await s.create("/r/a", "va");
    assert.deepEqual(a, { key: "/r/a", value: "va", revision: 1 });
    const b = await s.create("/r/b", "");
    assert.deepEqual(b, { key: "/r/b", value: "", revision: 2 });
    assert.deepEqual(await s.get("/r/a"), a);
    assert.deepEqual(await s.get("/r/b"), b);
    assert.equal(await s.get("/r/c"), undefined);
    assert.equal(await s.currentRevision(), 2);
    const unicode = await s.create("/r/ü/😀", "ünïcödé 😀");
    assert.deepEqual(await s.get("/r/ü/😀"), unicode);
  });

  test("create() throws KeyExistsError for an existing key", async (s) => {
    await s.create("/r/a", "1");
    await assert.rejects(
      s.create("/r/a", "2"),
      (e) => e instanceof KeyExistsError && e.key === "/r/a",
    );
    assert.equal((await s.get("/r/a"))?.value, "1");
    assert.equal(await s.currentRevision(), 1);
  });

  test("update() compares and swaps on the revision read", async (s) => {
    const a = await s.create("/r/a", "1");
    const a2 = await s.update("/r/a", "2", a.revision);
    assert.deepEqual(a2, { key: "/r/a", value: "2", revision: 2 });
    await assert.rejects(
      s.update("/r/a", "3", a.revision),
      (e) => e instanceof RevisionConflictError && e.currentRevision === 2 && e.key === "/r/a",
    );
    await assert.rejects(s.update("/r/missing", "x", 1), KeyNotFoundError);
    assert.deepEqual(await s.get("/r/a"), a2);
    assert.equal(await s.currentRevision(), 2);
  });

  test("delete() returns the deletion with the last value", async (s) => {
    const a = await s.create("/r/a", "1");
    const b = await s.create("/r/b", "b");
    await assert.rejects(s.delete("/r/a", 99), RevisionConflictError);
    await assert.rejects(s.delete("/r/missing", 0), KeyNotFoundError);
    const del = await s.delete("/r/a", a.revision);
    assert.deepEqual(del, {
      type: "DELETED",
      key: "/r/a",
      value: "1",
      revision: 3,
      prevValue: "1",
      prevRevision: 1,
    });
    assert.equal(await s.get("/r/a"), undefined);
    const delAny = await s.delete("/r/b", 0);
    assert.equal(delAny.revision, 4);
    assert.equal(delAny.prevRevision, b.revision);
    await assert.rejects(s.delete("/r/a", 0), KeyNotFoundError);
    const again = await s.create("/r/a", "new");
    assert.equal(again.revision, 5);
  });

  test("update() never loses an update under concurrent read-modify-write loops", async (s) => {
    await s.create("/r/counter", "0");
    const writers = 16;
    let conflicts = 0;
    const increment = async () => {
      for (;;) {
        const cur = await s.get("/r/counter");
        assert.ok(cur);
        try {
          await s.update("/r/counter", String(Number(cur.value) + 1), cur.revision);
          return;
        } catch (e) {
          if (!(e instanceof RevisionConflictError)) throw e;
          conflicts++;
        }
      }
    };
    await Promise.all(Array.from({ length: writers }, increment));
    const final = await s.get("/r/counter");
    assert.equal(final?.value, String(writers));
    assert.equal(final?.revision, 1 + writers);
    assert.ok(conflicts >= 0);
  });

  test("create() gives concurrent writes distinct consecutive revisions", async (s) => {
    const n = 50;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => s.create(`/r/k${String(i).padStart(3, "0")}`, `v${i}`)),
    );
    const revisions = results.map((r) => r.revision).sort((x, y) => x - y);
    assert.deepEqual(revisions, Array.from({ length: n }, (_, i) => i + 1));
    const dup = await Promise.allSettled([s.create("/r/dup", "1"), s.create("/r/dup", "2")]);
    assert.equal(dup.filter((r) => r.status === "fulfilled").length, 1);
    const rejected = dup.find((r) => r.status === "rejected");
    assert.ok(rejected?.status === "rejected" && rejected.reason instanceof KeyExistsError);
  });

  test(
    "list() scans a prefix in key order with startKey, limit, more and count",
    async (s, _h, t) => {
      for (const k of ["/p/b", "/p/a", "/p/c", "/p/d", "/pa/x", "/o/z", "/p"]) await s.create(k, k);
      const all = await s.list("/p/");
      assert.deepEqual(all.items.map((i) => i.key), ["/p/a", "/p/b", "/p/c", "/p/d"]);
      assert.equal(all.more, false);
      assert.equal(all.revision, 7);
      assert.deepEqual(all.items[0], { key: "/p/a", value: "/p/a", revision: 2 });

      await t.step("limit", async () => {
        const r = await s.list("/p/", { limit: 2, count: true });
        assert.deepEqual(r.items.map((i) => i.key), ["/p/a", "/p/b"]);
        assert.equal(r.more, true);
        assert.equal(r.remaining, 2);
        const exact = await s.list("/p/", { limit: 4, count: true });
        assert.equal(exact.more, false);
        assert.equal(exact.remaining, 0);
      });
      await t.step("startKey", async () => {
        const r = await s.list("/p/", { startKey: "/p/b\x00", limit: 2, count: true });
        assert.deepEqual(r.items.map((i) => i.key), ["/p/c", "/p/d"]);
        assert.equal(r.more, false);
        assert.equal(r.remaining, 0);
        const incl = await s.list("/p/", { startKey: "/p/b" });
        assert.deepEqual(incl.items.map((i) => i.key), ["/p/b", "/p/c", "/p/d"]);
      });
      await t.step("empty and whole-keyspace prefixes", async () => {
        assert.deepEqual((await s.list("/none/")).items, []);
        assert.equal((await s.list("")).items.length, 7);
        assert.deepEqual((await s.list("/p")).items.map((i) => i.key), [
          "/p",
          "/p/a",
          "/p/b",
          "/p/c",
          "/p/d",
          "/pa/x",
        ]);
      });
      await t.step("bad input", async () => {
        await assert.rejects(s.list("/p/", { startKey: "/q/" }));
        await assert.rejects(s.list("/p/", { limit: -1 }));
      });
    },
  );

  test("list() with filter reads on until limit items match", async (s) => {
    for (let i = 0; i < 40; i++) await s.create(`/f/${String(i).padStart(2, "0")}`, String(i));
    const every7 = (kv: KeyValue) => Number(kv.value) % 7 === 0;
    const r = await s.list("/f/", { filter: every7, limit: 3 });
    assert.deepEqual(r.items.map((i) => i.value), ["0", "7", "14"]);
    assert.equal(r.more, true);
    const rest = await s.list("/f/", { filter: every7, limit: 3, startKey: "/f/14\x00" });
    assert.deepEqual(rest.items.map((i) => i.value), ["21", "28", "35"]);
    assert.equal(rest.more, true, "keys /f/36../f/39 follow");
    const none = await s.list("/f/", { filter: every7, limit: 3, startKey: "/f/35\x00" });
    assert.deepEqual(none.items, []);
    assert.equal(none.more, false);
    const last = await s.list("/f/", { filter: (kv) => kv.value === "39", limit: 1 });
    assert.deepEqual(last.items.map((i) => i.value), ["39"]);
    assert.equal(last.more, false);
    const unlimited = await s.list("/f/", { filter: every7 });
    assert.equal(unlimited.items.length, 6);
  });

  test("get() and list() read the state at a past revision", async (s) => {
    // A seeded random history over a few keys, replayed into a model.
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const keys = ["/h/a", "/h/b", "/h/c", "/h/d", "/h/e", "/h/e/x"];
    const models: Array<Map<string, KeyValue>> = [new Map()];
    const state = new Map<string, KeyValue>();
    for (let i = 0; i < 45; i++) {
      const key = keys[rand(keys.length)];
      const cur = state.get(key);
      if (!cur) state.set(key, await s.create(key, `v${i}`));
      else if (rand(3) === 0) {
        await s.delete(key, cur.revision);
        state.delete(key);
      } else state.set(key, await s.update(key, `v${i}`, cur.revision));
      models.push(new Map(state));
    }
    const current = await s.currentRevision();
    assert.equal(current, models.length - 1);
    await s.create("/other", "x"); // outside the prefix, after the history
    for (let r = 0; r <= current; r++) {
      const expected = [...models[r].values()].sort((x, y) => (x.key < y.key ? -1 : 1));
      const got = await s.list("/h/", { revision: r });
      assert.deepEqual(got.items, expected, `list at ${r}`);
      assert.equal(got.revision, r);
      if (r % 3 === 0) {
        for (const key of keys) {
          assert.deepEqual(await s.get(key, { revision: r }), models[r].get(key), `${key} at ${r}`);
        }
        // Page through with limit 2 at the same revision.
        const paged: KeyValue[] = [];
        let startKey: string | undefined;
        for (;;) {
          const page = await s.list("/h/", { revision: r, limit: 2, startKey, count: true });
          paged.push(...page.items);
          assert.equal(page.remaining, expected.length - paged.length, `remaining at ${r}`);
          if (!page.more) break;
          startKey = page.items[page.items.length - 1].key + "\x00";
        }
        assert.deepEqual(paged, expected, `paged list at ${r}`);
      }
    }
    await assert.rejects(
      s.get("/h/a", { revision: current + 5 }),
      (e) => e instanceof FutureRevisionError && e.requested === current + 5,
    );
    await assert.rejects(s.list("/h/", { revision: current + 5 }), FutureRevisionError);
  });

  test("changesSince() returns the change log in revision order", async (s) => {
    await s.create("/c/a", "1");
    await s.update("/c/a", "2", 1);
    await s.create("/c/b", "b");
    await s.delete("/c/a", 2);
    const all = await s.changesSince(0, 100);
    assert.deepEqual(all, [
      { type: "ADDED", key: "/c/a", value: "1", revision: 1, prevRevision: 0 },
      { type: "MODIFIED", key: "/c/a", value: "2", revision: 2, prevValue: "1", prevRevision: 1 },
      { type: "ADDED", key: "/c/b", value: "b", revision: 3, prevRevision: 0 },
      { type: "DELETED", key: "/c/a", value: "2", revision: 4, prevValue: "2", prevRevision: 2 },
    ]);
    assert.deepEqual((await s.changesSince(1, 2)).map((e) => e.revision), [2, 3]);
    assert.deepEqual(await s.changesSince(4, 10), []);
    await assert.rejects(s.changesSince(0, 0));
  });

  test("compact() drops history and older reads throw CompactedError", async (s) => {
    await s.create("/k/a", "1");
    await s.update("/k/a", "2", 1);
    await s.create("/k/b", "b");
    await s.delete("/k/b", 3);
    await s.update("/k/a", "3", 2);
    await s.compact(3);
    assert.equal(await s.compactedRevision(), 3);
    await assert.rejects(
      s.get("/k/a", { revision: 2 }),
      (e) => e instanceof CompactedError && e.requested === 2 && e.compacted === 3,
    );
    await assert.rejects(s.list("/k/", { revision: 1 }), CompactedError);
    await assert.rejects(s.changesSince(2, 10), CompactedError);
    assert.deepEqual((await s.changesSince(3, 10)).map((e) => e.revision), [4, 5]);
    assert.deepEqual((await s.list("/k/", { revision: 3 })).items, [
      { key: "/k/a", value: "2", revision: 2 },
      { key: "/k/b", value: "b", revision: 3 },
    ]);
    assert.deepEqual((await s.get("/k/a", { revision: 4 }))?.value, "2");
    assert.deepEqual((await s.list("/k/")).items.map((i) => i.value), ["3"]);
    await s.compact(2); // below the compacted revision: nothing to do
    assert.equal(await s.compactedRevision(), 3);
    await assert.rejects(s.compact(99), FutureRevisionError);
    await s.compact(5);
    assert.deepEqual(await s.changesSince(5, 10), []);
    assert.equal((await s.get("/k/a", { revision: 5 }))?.value, "3");
  });

  test("onCommit() delivers committed changes in revision order", async (s) => {
    const seen: ChangeEvent[] = [];
    const stop = s.onCommit((events) => seen.push(...events));
    const throwing = s.onCommit(() => {
      throw new Error("listener failure must not break writes");
    });
    const n = 40;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) => s.create(`/w/${i}`, String(i))),
    );
    await s.update("/w/0", "x", created[0].revision);
    assert.deepEqual(seen.map((e) => e.revision), Array.from({ length: n + 1 }, (_, i) => i + 1));
    assert.equal(seen[n].type, "MODIFIED");
    assert.equal(seen[n].prevValue, "0");
    stop();
    throwing();
    await s.delete("/w/1", 0);
    assert.equal(seen.length, n + 1);
    assert.deepEqual(seen, await s.changesSince(0, n + 1));
  });

  test("onCommit() hands listeners the writer's decoded value, never the log's", async (s) => {
    const seen: ChangeEvent[] = [];
    const stop = s.onCommit((events) => seen.push(...events));
    const a = { v: "a" };
    const created = await s.create("/dec/a", JSON.stringify(a), a);
    await s.create("/dec/plain", "1");
    const b = { v: "b" };
    await s.update("/dec/a", JSON.stringify(b), created.revision, b);
    await s.delete("/dec/a", 0);
    stop();
    assert.deepEqual(seen.map((e) => [e.type, e.key]), [
      ["ADDED", "/dec/a"],
      ["ADDED", "/dec/plain"],
      ["MODIFIED", "/dec/a"],
      ["DELETED", "/dec/a"],
    ]);
    assert.equal(seen[0].decoded, a, "the very object passed to create()");
    assert.equal(seen[1].decoded, undefined);
    assert.equal(seen[2].decoded, b, "the very object passed to update()");
    assert.equal(seen[3].decoded, undefined, "a deletion carries no decoded value");
    const logged = await s.changesSince(0, 10);
    assert.ok(logged.every((e) => e.decoded === undefined), "never stored");
    assert.deepEqual(logged, seen.map(({ decoded: _, ...e }) => e));
  });

  test("close() and open() keep every acknowledged write", async (s, h) => {
    await s.create("/d/a", "1");
    const b = await s.create("/d/b", "2");
    await s.update("/d/b", "3", b.revision);
    await s.delete("/d/a", 0);
    await s.close();
    const reopened = await h.open();
    try {
      assert.equal(await reopened.currentRevision(), 4);
      assert.deepEqual((await reopened.list("/d/")).items, [{
        key: "/d/b",
        value: "3",
        revision: 3,
      }]);
      assert.equal((await reopened.get("/d/a", { revision: 1 }))?.value, "1");
      assert.equal((await reopened.create("/d/c", "c")).revision, 5);
    } finally {
      await reopened.close();
    }
  });

  test("create() rejects bad input with a clear error", async (s) => {
    await assert.rejects(s.create("", "x"));
    await assert.rejects(s.create("/bad\x00key", "x"));
    await assert.rejects(s.create("/r/a", undefined as unknown as string), TypeError);
    await assert.rejects(s.update("/r/a", "x", -1), TypeError);
    await assert.rejects(s.get("/r/a", { revision: 1.5 }), TypeError);
    assert.equal(await s.currentRevision(), 0);
  });
}
