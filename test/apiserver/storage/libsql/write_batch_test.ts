import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { SCHEMA_STATEMENTS } from "../../../../apiserver/storage/libsql/schema.ts";
import { writeBatch, type WriteOp } from "../../../../apiserver/storage/libsql/write_batch.ts";
import { FIRST_OP, MIXED_BATCH } from "./_write_cases.ts";

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
    const first = await writeBatch(client, [FIRST_OP], 7, true);
    assert.deepEqual(first, {
      outcomes: [{ revision: 1, prevRevision: 0 }],
      committed: 1,
      synchronous: 2,
    });
    const res = await writeBatch(client, MIXED_BATCH.ops, 8, false);
    assert.deepEqual(res.outcomes, MIXED_BATCH.outcomes);
    assert.equal(res.committed, MIXED_BATCH.committed);
    assert.equal(res.synchronous, undefined);
    const kv = await client.execute("SELECT key, value, revision FROM kv ORDER BY key");
    assert.deepEqual(kv.rows.map((r) => [r[0], r[1], r[2]]), MIXED_BATCH.kv);
    const log = await client.execute(
      "SELECT revision, type, key, value, prev_revision, prev_value, time_ms FROM log ORDER BY revision",
    );
    assert.deepEqual(
      log.rows.map((r) => Array.from({ length: r.length }, (_, i) => r[i])),
      MIXED_BATCH.log,
    );
    const meta = await client.execute("SELECT revision FROM meta");
    assert.equal(meta.rows[0][0], MIXED_BATCH.metaRevision);
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
