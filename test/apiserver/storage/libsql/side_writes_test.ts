import assert from "node:assert/strict";
import { KeyExistsError } from "../../../../apiserver/storage/interface.ts";
import { LibsqlStorage } from "../../../../apiserver/storage/libsql/libsql_storage.ts";

async function withStorage(fn: (s: LibsqlStorage) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "side_writes_" });
  const s = await LibsqlStorage.open({ url: `file:${dir}/state.db` });
  try {
    await fn(s);
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("LibsqlStorage.create() writes side keys in the same transaction, all or nothing", async () => {
  await withStorage(async (s) => {
    const a = await s.create("/o/a", "A", undefined, { create: [{ key: "/c/1", value: "a" }] });
    assert.equal((await s.get("/c/1"))?.value, "a");
    assert.equal((await s.get("/c/1"))?.revision, a.revision + 1);
    // A taken side key fails the whole write: the object is not created.
    await assert.rejects(
      s.create("/o/b", "B", undefined, {
        create: [{ key: "/c/2", value: "b" }, { key: "/c/1", value: "b" }],
      }),
      (e) => e instanceof KeyExistsError && e.key === "/c/1",
    );
    assert.equal(await s.get("/o/b"), undefined);
    assert.equal(await s.get("/c/2"), undefined);
  });
});

Deno.test("LibsqlStorage.create() never gives one side key to two concurrent writers", async () => {
  await withStorage(async (s) => {
    const results = await Promise.allSettled(
      Array.from(
        { length: 20 },
        (_, i) =>
          s.create(`/o/${i}`, "x", undefined, { create: [{ key: "/c/same", value: String(i) }] }),
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    assert.equal((await s.list("/o/")).items.length, 1);
  });
});

Deno.test("LibsqlStorage.delete() and update() release side keys, skipping missing ones", async () => {
  await withStorage(async (s) => {
    const a = await s.create("/o/a", "A", undefined, { create: [{ key: "/c/1", value: "a" }] });
    const u = await s.update("/o/a", "A2", a.revision, undefined, {
      create: [{ key: "/c/2", value: "a" }],
      delete: ["/c/1", "/c/missing"],
    });
    assert.equal(await s.get("/c/1"), undefined);
    assert.equal((await s.get("/c/2"))?.value, "a");
    await s.delete("/o/a", u.revision, { delete: ["/c/2"] });
    assert.equal((await s.list("/c/")).items.length, 0);
    assert.equal(await s.get("/o/a"), undefined);
  });
});
