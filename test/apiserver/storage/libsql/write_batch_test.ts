import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { SCHEMA_STATEMENTS } from "../../../../apiserver/storage/libsql/schema.ts";
import { writeBatch, type WriteOp } from "../../../../apiserver/storage/libsql/write_batch.ts";

async function withDb(fn: (client: ReturnType<typeof createClient>) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "write_batch_" });
  const client = createClient({ url: `file:${dir}/state.db` });
  try {
    await client.batch([...SCHEMA_STATEMENTS], "write");
    await fn(client);
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("writeBatch() applies each write in order and refuses only the failing ones", async () => {
  await withDb(async (client) => {
    const first = await writeBatch(client, [{ kind: "create", key: "/a", value: "a1" }], 7, true);
    assert.deepEqual(first, {
      outcomes: [{ revision: 1, prevRevision: 0 }],
      committed: 1,
      synchronous: 2,
    });
    const ops: WriteOp[] = [
      { kind: "create", key: "/a", value: "dup" },
      { kind: "update", key: "/a", value: "a2", expected: 1 },
      { kind: "update", key: "/a", value: "stale", expected: 1 },
      { kind: "delete", key: "/missing", expected: 0 },
      { kind: "create", key: "/c", value: "c1" },
      { kind: "delete", key: "/c", expected: 3 },
      { kind: "create", key: "/c", value: "c2" },
      { kind: "create", key: "/d", value: "d1" },
      { kind: "delete", key: "/d", expected: 0 },
    ];
    const res = await writeBatch(client, ops, 8, false);
    assert.deepEqual(res.outcomes, [
      { refused: "exists" },
      { revision: 2, prevRevision: 1, prevValue: "a1" },
      { refused: "conflict", currentRevision: 2 },
      { refused: "notFound" },
      { revision: 3, prevRevision: 0 },
      { revision: 4, prevRevision: 3, prevValue: "c1" },
      { revision: 5, prevRevision: 0 },
      { revision: 6, prevRevision: 0 },
      { revision: 7, prevRevision: 6, prevValue: "d1" },
    ]);
    assert.equal(res.committed, 6);
    assert.equal(res.synchronous, undefined);
    const kv = await client.execute("SELECT key, value, revision FROM kv ORDER BY key");
    assert.deepEqual(kv.rows.map((r) => [r[0], r[1], r[2]]), [["/a", "a2", 2], ["/c", "c2", 5]]);
    const log = await client.execute(
      "SELECT revision, type, key, value, prev_revision, prev_value, time_ms FROM log ORDER BY revision",
    );
    assert.deepEqual(log.rows.map((r) => Array.from({ length: r.length }, (_, i) => r[i])), [
      [1, 0, "/a", "a1", 0, null, 7],
      [2, 1, "/a", "a2", 1, "a1", 8],
      [3, 0, "/c", "c1", 0, null, 8],
      [4, 2, "/c", null, 3, "c1", 8],
      [5, 0, "/c", "c2", 0, null, 8],
      [6, 0, "/d", "d1", 0, null, 8],
      [7, 2, "/d", null, 6, "d1", 8],
    ]);
    const meta = await client.execute("SELECT revision FROM meta");
    assert.equal(meta.rows[0][0], 7);
  });
});

Deno.test("writeBatch() rolls back a batch in which every write is refused", async () => {
  await withDb(async (client) => {
    const res = await writeBatch(client, [{ kind: "delete", key: "/x", expected: 0 }], 1, true);
    assert.deepEqual(res, { outcomes: [{ refused: "notFound" }], committed: 0, synchronous: 2 });
    assert.equal((await client.execute("SELECT COUNT(*) FROM log")).rows[0][0], 0);
  });
});

Deno.test("writeBatch() commits batches larger than one statement's variable limit", async () => {
  await withDb(async (client) => {
    const ops: WriteOp[] = Array.from({ length: 5000 }, (_, i) => ({
      kind: "create",
      key: `/big/${i}`,
      value: "v",
    }));
    const res = await writeBatch(client, ops, 1, true);
    assert.equal(res.committed, 5000);
    assert.equal((await client.execute("SELECT COUNT(*) FROM kv")).rows[0][0], 5000);
    assert.equal((await client.execute("SELECT MAX(revision) FROM log")).rows[0][0], 5000);
  });
});
