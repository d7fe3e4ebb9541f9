import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { FILE_PRAGMAS, SCHEMA_STATEMENTS } from "../../../../apiserver/storage/libsql/schema.ts";
import {
  embeddedFilePath,
  SyncBatchWriter,
} from "../../../../apiserver/storage/libsql/sync_batch_writer.ts";
import type { WriteOp } from "../../../../apiserver/storage/libsql/write_batch.ts";
import { FIRST_OP, MIXED_BATCH } from "./_write_cases.ts";

type Client = ReturnType<typeof createClient>;

async function withDb(
  busyTimeoutMs: number,
  fn: (writer: SyncBatchWriter, client: Client, url: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "sync_batch_writer_" });
  const url = `file:${dir}/state.db`;
  const client = createClient({ url });
  let writer: SyncBatchWriter | undefined;
  try {
    for (const pragma of FILE_PRAGMAS) await client.execute(pragma);
    await client.batch([...SCHEMA_STATEMENTS], "write");
    writer = SyncBatchWriter.open(url, busyTimeoutMs);
    await fn(writer, client, url);
  } finally {
    writer?.close();
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function rows(client: Client, sql: string): Promise<unknown[][]> {
  const rs = await client.execute(sql);
  return rs.rows.map((r) => Array.from({ length: r.length }, (_, i) => r[i]));
}

Deno.test("SyncBatchWriter.write() applies each write in order and refuses only the failing ones", async () => {
  await withDb(1000, async (writer, client) => {
    const first = writer.write([FIRST_OP], 7);
    assert.deepEqual(first, {
      outcomes: [{ revision: 1, prevRevision: 0 }],
      committed: 1,
      synchronous: 2,
    });
    const res = writer.write(MIXED_BATCH.ops, 8);
    assert.deepEqual(res.outcomes, MIXED_BATCH.outcomes);
    assert.equal(res.committed, MIXED_BATCH.committed);
    assert.equal(res.synchronous, 2);
    assert.deepEqual(
      await rows(client, "SELECT key, value, revision FROM kv ORDER BY key"),
      MIXED_BATCH.kv,
    );
    assert.deepEqual(
      await rows(
        client,
        "SELECT revision, type, key, value, prev_revision, prev_value, time_ms FROM log ORDER BY revision",
      ),
      MIXED_BATCH.log,
    );
    assert.deepEqual(await rows(client, "SELECT revision FROM meta"), [[MIXED_BATCH.metaRevision]]);
  });
});

Deno.test("SyncBatchWriter.write() reuses its statements across batches of the same and other sizes", async () => {
  await withDb(1000, async (writer, client) => {
    let revision = 0;
    for (let round = 0; round < 3; round++) {
      for (const size of [1, 3, 7, 3, 1]) {
        const ops: WriteOp[] = Array.from({ length: size }, (_, i) => ({
          kind: "create",
          key: `/r${round}/s${size}/${revision + i}`,
          value: "v",
        }));
        const res = writer.write(ops, 1);
        assert.equal(res.committed, size);
        revision += size;
        assert.deepEqual(res.outcomes.at(-1), { revision, prevRevision: 0 });
      }
    }
    assert.deepEqual(await rows(client, "SELECT COUNT(*), MAX(revision) FROM kv"), [[
      revision,
      revision,
    ]]);
  });
});

Deno.test("SyncBatchWriter.write() rolls back a batch in which every write is refused", async () => {
  await withDb(1000, async (writer, client) => {
    const res = writer.write([{ kind: "delete", key: "/x", expected: 0 }], 1);
    assert.deepEqual(res, { outcomes: [{ refused: "notFound" }], committed: 0, synchronous: 2 });
    assert.deepEqual(await rows(client, "SELECT COUNT(*) FROM log"), [[0]]);
    // The connection is out of its transaction: the next batch commits.
    assert.equal(writer.write([{ kind: "create", key: "/x", value: "x" }], 1).committed, 1);
  });
});

Deno.test("SyncBatchWriter.write() commits batches larger than one statement's variable limit", async () => {
  await withDb(1000, async (writer, client) => {
    const ops: WriteOp[] = Array.from({ length: 5000 }, (_, i) => ({
      kind: "create",
      key: `/big/${i}`,
      value: "v",
    }));
    assert.equal(writer.write(ops, 1).committed, 5000);
    assert.deepEqual(await rows(client, "SELECT COUNT(*), MAX(revision) FROM kv"), [[5000, 5000]]);
  });
});

Deno.test("SyncBatchWriter.open() sets the busy timeout and keeps synchronous at FULL", async () => {
  await withDb(1234, (writer) => {
    assert.deepEqual(writer.pragma("busy_timeout"), [1234]);
    assert.deepEqual(writer.pragma("synchronous"), [2]);
    return Promise.resolve();
  });
});

Deno.test("SyncBatchWriter.write() fails with SQLITE_BUSY while another connection holds the lock, then commits", async () => {
  await withDb(20, async (writer, client) => {
    const tx = await client.transaction("write");
    try {
      await tx.execute("UPDATE meta SET compacted = compacted WHERE id = 1");
      assert.throws(
        () => writer.write([{ kind: "create", key: "/k", value: "v" }], 1),
        (e: unknown) => (e as { code?: string }).code === "SQLITE_BUSY",
      );
    } finally {
      await tx.rollback();
      tx.close();
    }
    const res = writer.write([{ kind: "create", key: "/k", value: "v" }], 1);
    assert.deepEqual(res.outcomes, [{ revision: 1, prevRevision: 0 }]);
  });
});

Deno.test("SyncBatchWriter.write() refuses to commit below synchronous=FULL and rolls back", async () => {
  await withDb(1000, async (writer, client) => {
    writer.pragma("synchronous = NORMAL");
    assert.throws(
      () => writer.write([{ kind: "create", key: "/k", value: "v" }], 1),
      /synchronous=1 \(below FULL\)/,
    );
    assert.deepEqual(await rows(client, "SELECT COUNT(*) FROM log"), [[0]]);
    writer.pragma("synchronous = FULL");
    assert.equal(writer.write([{ kind: "create", key: "/k", value: "v" }], 1).committed, 1);
  });
});

Deno.test("embeddedFilePath() reads a file: URL as @libsql/client does", async (t) => {
  const cases: Array<[string, string | RegExp]> = [
    ["file:/tmp/a/state.db", "/tmp/a/state.db"],
    ["file:///tmp/a/state.db", "/tmp/a/state.db"],
    ["file:rel/state.db", "rel/state.db"],
    ["file:/tmp/a%20b/state.db?mode=rwc", "/tmp/a b/state.db"],
    ["file://host/tmp/state.db", /must not name a host/],
    ["file:", /needs a path/],
    ["libsql://example.org", /not an embedded database URL/],
  ];
  for (const [url, want] of cases) {
    await t.step(url, () => {
      if (typeof want === "string") assert.equal(embeddedFilePath(url), want);
      else assert.throws(() => embeddedFilePath(url), want);
    });
  }
});

Deno.test("SyncBatchWriter.read() returns rows as arrays, binding ? and ?NNN by position", async (t) => {
  await withDb(1000, async (writer) => {
    writer.write([
      { kind: "create", key: "/a/1", value: "one" },
      { kind: "create", key: "/a/2", value: "two" },
      { kind: "create", key: "/b/1", value: "three" },
    ], 1);
    await t.step("one statement without arguments", () => {
      assert.deepEqual(writer.read(["SELECT revision FROM meta WHERE id = 1"]), [[[3]]]);
    });
    await t.step("? parameters", () => {
      assert.deepEqual(
        writer.read([{ sql: "SELECT value, revision FROM kv WHERE key = ?", args: ["/a/2"] }]),
        [[["two", 2]]],
      );
    });
    await t.step("?NNN parameters, used out of order and twice", () => {
      const sql = "SELECT key FROM kv WHERE key >= ?1 AND key < ?2 AND key <> ?1 ORDER BY key";
      assert.deepEqual(writer.read([{ sql, args: ["/a/", "/a0"] }]), [[["/a/1"], ["/a/2"]]]);
    });
    await t.step("several statements, each with its own rows", () => {
      const [meta, none, all] = writer.read([
        "SELECT revision FROM meta WHERE id = 1",
        { sql: "SELECT value FROM kv WHERE key = ?", args: ["/missing"] },
        "SELECT key FROM kv ORDER BY key",
      ]);
      assert.deepEqual(meta, [[3]]);
      assert.deepEqual(none, []);
      assert.deepEqual(all, [["/a/1"], ["/a/2"], ["/b/1"]]);
    });
    await t.step("a failing statement throws and leaves no transaction open", () => {
      assert.throws(() => writer.read(["SELECT 1", "SELECT x FROM nowhere"]), /nowhere/);
      assert.equal(writer.write([{ kind: "create", key: "/c/1", value: "v" }], 2).committed, 1);
      assert.deepEqual(writer.read(["SELECT revision FROM meta WHERE id = 1"]), [[[4]]]);
    });
  });
});

Deno.test("SyncBatchWriter.read() sees what another connection committed before the call", async () => {
  await withDb(1000, (writer, _client, url) => {
    writer.write([{ kind: "create", key: "/k/0", value: "v" }], 1);
    const other = SyncBatchWriter.open(url, 1000);
    try {
      // The write worker commits on a connection of its own; reads here must see its commits.
      const before = writer.read(["SELECT revision FROM meta", "SELECT COUNT(*) FROM kv"]);
      other.write([{ kind: "create", key: "/k/1", value: "v" }], 2);
      const after = writer.read(["SELECT revision FROM meta", "SELECT COUNT(*) FROM kv"]);
      assert.deepEqual(before, [[[1]], [[1]]]);
      assert.deepEqual(after, [[[2]], [[2]]]);
    } finally {
      other.close();
    }
    return Promise.resolve();
  });
});
