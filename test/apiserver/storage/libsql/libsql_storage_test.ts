import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { CompactedError, RevisionConflictError } from "../../../../apiserver/storage/interface.ts";
import {
  type GroupCommitInfo,
  LibsqlStorage,
} from "../../../../apiserver/storage/libsql/libsql_storage.ts";
import { storageContract } from "../storage_contract.ts";
import { eventually } from "../../../support/eventually.ts";

storageContract("LibsqlStorage (file)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "libsql_storage_" });
  return {
    open: () => LibsqlStorage.open({ url: `file:${dir}/state.db` }),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});

/** Runs `fn` with a fresh temp dir, removed afterwards. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "libsql_storage_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("LibsqlStorage.open() rejects a bad URL or option with a clear error", async (t) => {
  const cases: Array<[string, Parameters<typeof LibsqlStorage.open>[0], RegExp]> = [
    ["empty url", { url: "" }, /must start with file:/],
    ["unknown scheme", { url: "postgres://x/y" }, /must start with file:/],
    ["file without path", { url: "file:" }, /needs a path/],
    ["negative window", { url: "file:/tmp/x.db", historyWindowMs: -1 }, /historyWindowMs/],
    ["zero batch", { url: "file:/tmp/x.db", maxBatch: 0 }, /maxBatch/],
    ["missing dir", { url: "file:/nonexistent-dir/sub/state.db" }, /cannot open storage/],
  ];
  for (const [name, opts, message] of cases) {
    await t.step(name, () => assert.rejects(LibsqlStorage.open(opts), message));
  }
});

Deno.test("LibsqlStorage.create() group-commits concurrent writes with synchronous=FULL", async () => {
  await inTempDir(async (dir) => {
    const s = await LibsqlStorage.open({ url: `file:${dir}/state.db` });
    try {
      // Concurrent reads keep several pooled connections busy, so write transactions run on
      // whichever connection is free; each one reads PRAGMA synchronous back.
      const n = 200;
      await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          await s.list("/g/", { limit: 5 });
          await s.create(`/g/${i}`, "x".repeat(1024));
          await s.get(`/g/${i}`);
        }),
      );
      const stats = s.stats();
      assert.equal(stats.committedWrites, n);
      assert.equal(stats.lastSynchronous, 2, "FULL");
      assert.ok(stats.transactions < n, `group commit: ${stats.transactions} transactions`);
      assert.ok(stats.largestBatch > 1);
      assert.equal(await s.currentRevision(), n);
    } finally {
      await s.close();
    }
  });
});

Deno.test("LibsqlStorage.maintain() compacts history older than the window", async () => {
  await inTempDir(async (dir) => {
    let clock = 1_000_000;
    const s = await LibsqlStorage.open({
      url: `file:${dir}/state.db`,
      historyWindowMs: 60_000,
      maintenanceIntervalMs: 0,
      now: () => clock,
    });
    try {
      await Promise.all(Array.from({ length: 30 }, (_, i) => s.create(`/m/${i}`, "old")));
      clock += 50_000;
      await s.update("/m/0", "newer", 1);
      const nothing = await s.maintain();
      assert.equal(nothing.compactedRevision, 0);
      assert.equal(nothing.removedChanges, 0);
      clock += 20_000; // the first 30 revisions are now 70 s old, the update 20 s
      const done = await s.maintain();
      assert.equal(done.compactedRevision, 30);
      assert.equal(done.removedChanges, 30);
      assert.equal(done.checkpointed, true);
      await assert.rejects(s.get("/m/1", { revision: 29 }), CompactedError);
      assert.equal((await s.get("/m/0", { revision: 30 }))?.value, "old");
      assert.deepEqual((await s.changesSince(30, 10)).map((e) => e.revision), [31]);
    } finally {
      await s.close();
    }
  });
});

Deno.test("LibsqlStorage runs maintenance in the background", async () => {
  await inTempDir(async (dir) => {
    let clock = 0;
    const s = await LibsqlStorage.open({
      url: `file:${dir}/state.db`,
      historyWindowMs: 1000,
      maintenanceIntervalMs: 5,
      now: () => clock,
    });
    try {
      await s.create("/bg/a", "1");
      await s.create("/bg/b", "1");
      clock = 5000;
      await eventually("background compaction", async () => await s.compactedRevision() === 2);
    } finally {
      await s.close();
    }
  });
});

Deno.test("LibsqlStorage.compact() works in batches of 1000 revisions", async () => {
  await inTempDir(async (dir) => {
    const s = await LibsqlStorage.open({ url: `file:${dir}/state.db`, maintenanceIntervalMs: 0 });
    try {
      await Promise.all(Array.from({ length: 2500 }, (_, i) => s.create(`/b/${i}`, "v")));
      const before = s.stats().transactions;
      await s.compact(2400);
      assert.equal(s.stats().transactions - before, 3);
      assert.equal(await s.compactedRevision(), 2400);
      assert.equal((await s.changesSince(2400, 1000)).length, 100);
    } finally {
      await s.close();
    }
  });
});

Deno.test("LibsqlStorage.maintain() returns freed space to the file system", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/state.db`;
    const s = await LibsqlStorage.open({ url: `file:${path}`, maintenanceIntervalMs: 0 });
    try {
      const big = "y".repeat(16 * 1024);
      await Promise.all(Array.from({ length: 200 }, (_, i) => s.create(`/v/${i}`, big)));
      await s.maintain(); // checkpoint: the data lands in the main file
      const full = (await Deno.stat(path)).size;
      await Promise.all(Array.from({ length: 200 }, (_, i) => s.delete(`/v/${i}`, 0)));
      await s.compact(await s.currentRevision());
      const result = await s.maintain();
      assert.equal(result.checkpointed, true);
      const after = (await Deno.stat(path)).size;
      assert.ok(after < full / 4, `file shrank from ${full} to ${after}`);
      assert.equal((await Deno.stat(`${path}-wal`)).size, 0, "WAL truncated");
    } finally {
      await s.close();
    }
  });
});

Deno.test("LibsqlStorage.update() loses no update with two instances on one file", async () => {
  await inTempDir(async (dir) => {
    const url = `file:${dir}/state.db`;
    const a = await LibsqlStorage.open({ url });
    const b = await LibsqlStorage.open({ url });
    try {
      await a.create("/two/counter", "0");
      const loop = async (s: LibsqlStorage) => {
        for (let done = 0; done < 10;) {
          const cur = await s.get("/two/counter");
          assert.ok(cur);
          try {
            await s.update("/two/counter", String(Number(cur.value) + 1), cur.revision);
            done++;
          } catch (e) {
            if (!(e instanceof RevisionConflictError)) throw e;
          }
        }
      };
      await Promise.all([a, b, a, b].map(loop));
      assert.equal((await b.get("/two/counter"))?.value, "40");
      assert.equal(await a.currentRevision(), 41);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

Deno.test("LibsqlStorage keeps every acknowledged write across kill -9", async () => {
  await inTempDir(async (dir) => {
    const url = `file:${dir}/state.db`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./kill9_writer.ts", import.meta.url).pathname, url],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const acked = new Map<string, number>();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    let killed = false;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      buffered += value;
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const line of parts) {
        const [word, key, revision] = line.split(" ");
        if (word === "ack") acked.set(key, Number(revision));
      }
      if (!killed && (acked.size >= 300 || Date.now() > deadline)) {
        child.kill("SIGKILL");
        killed = true; // keep reading: acks already in the pipe count too
      }
    }
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");
    assert.ok(acked.size >= 300, `child acknowledged ${acked.size} writes`);
    const s = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
    try {
      for (const [key, revision] of acked) {
        assert.equal((await s.get(key))?.revision, revision, `${key} survived`);
      }
      const current = await s.currentRevision();
      const listed = await s.list("/kill/");
      assert.equal(listed.items.length, current, "no gaps: one key per revision");
    } finally {
      await s.close();
    }
  });
});

Deno.test("LibsqlStorage commits correctly inline and on the write worker", async (t) => {
  // slowCommitMs 0: every commit counts as slow, so with a worker nearly all go to it.
  for (const writeWorker of [true, false]) {
    await t.step(`writeWorker: ${writeWorker}`, async () => {
      await inTempDir(async (dir) => {
        const s = await LibsqlStorage.open({
          url: `file:${dir}/state.db`,
          writeWorker,
          slowCommitMs: 0,
        });
        try {
          const kvs = await Promise.all(
            Array.from({ length: 50 }, (_, i) => s.create(`/w/${i}`, `v${i}`)),
          );
          assert.deepEqual(kvs.map((kv) => kv.revision).sort((a, b) => a - b), [
            ...Array.from({ length: 50 }, (_, i) => i + 1),
          ]);
          await assert.rejects(s.update("/w/0", "x", 999), RevisionConflictError);
          const ev = await s.delete("/w/1", 0);
          assert.equal(ev.prevValue, "v1");
          const stats = s.stats();
          assert.equal(stats.writeWorker, writeWorker);
          assert.equal(stats.lastSynchronous, 2, "FULL");
          assert.equal(stats.committedWrites, 51);
          if (writeWorker) assert.ok(stats.workerCommits > 0, JSON.stringify(stats));
          else assert.equal(stats.workerCommits, 0);
          assert.equal((await s.list("/w/")).items.length, 49);
        } finally {
          await s.close();
        }
      });
    });
  }
});

Deno.test("LibsqlStorage moves commits to the write worker after a slow one, and back", async (t) => {
  await inTempDir(async (dir) => {
    let now = 1_000_000;
    let slowCommitMs = 60_000;
    const open = () =>
      LibsqlStorage.open({
        url: `file:${dir}/state.db`,
        slowCommitMs,
        workerWindowMs: 5000,
        now: () => now,
      });
    const s = await open();
    try {
      await t.step("fast commits stay inline", async () => {
        await s.create("/m/a", "1");
        await s.create("/m/b", "1");
        const stats = s.stats();
        assert.equal(stats.writeWorker, true);
        assert.equal(stats.inlineCommits, 2);
        assert.equal(stats.workerCommits, 0);
        assert.equal(stats.slowCommits, 0);
      });
    } finally {
      await s.close();
    }
    slowCommitMs = 0;
    const slow = await open();
    try {
      await t.step("a slow commit sends the next ones to the worker", async () => {
        await slow.create("/m/c", "1");
        assert.deepEqual(pick(slow.stats()), { inline: 1, worker: 0, slow: 1 });
        await slow.create("/m/d", "1");
        await slow.create("/m/e", "1");
        assert.deepEqual(pick(slow.stats()), { inline: 1, worker: 2, slow: 3 });
      });
      await t.step("after the window without a slow commit, inline again", async () => {
        now += 5001;
        await slow.create("/m/f", "1");
        assert.deepEqual(pick(slow.stats()), { inline: 2, worker: 2, slow: 4 });
        assert.deepEqual((await slow.list("/m/")).items.map((kv) => kv.key), [
          "/m/a",
          "/m/b",
          "/m/c",
          "/m/d",
          "/m/e",
          "/m/f",
        ]);
      });
    } finally {
      await slow.close();
    }
  });
});

Deno.test("LibsqlStorage reports each group commit that wrote something to onGroupCommit", async () => {
  await inTempDir(async (dir) => {
    const seen: GroupCommitInfo[] = [];
    const s = await LibsqlStorage.open({
      url: `file:${dir}/state.db`,
      onGroupCommit: (c) => seen.push(c),
      // A paused machine must not make this commit count as slow.
      slowCommitMs: 60_000,
    });
    try {
      await Promise.all([s.create("/o/a", "1"), s.create("/o/b", "2")]);
      await assert.rejects(s.create("/o/a", "again"));
      assert.deepEqual(seen.map((c) => [c.where, c.slow]), [["inline", false]]);
      assert.equal(seen[0].writes, 2);
      assert.ok(seen[0].seconds > 0 && seen[0].seconds < 60);
    } finally {
      await s.close();
    }
  });
});

function pick(stats: { inlineCommits: number; workerCommits: number; slowCommits: number }) {
  return { inline: stats.inlineCommits, worker: stats.workerCommits, slow: stats.slowCommits };
}

Deno.test("LibsqlStorage.open() rebuilds an earlier WITHOUT ROWID kv table, keeping every key", async () => {
  await inTempDir(async (dir) => {
    const url = `file:${dir}/state.db`;
    // The layout written before kv became a rowid table.
    const old = createClient({ url });
    await old.batch([
      "CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL, compacted INTEGER NOT NULL)",
      "INSERT INTO meta (id, revision, compacted) VALUES (1, 3, 0)",
      "CREATE TABLE kv (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL, revision INTEGER NOT NULL) WITHOUT ROWID",
      `CREATE TABLE log (revision INTEGER PRIMARY KEY, type INTEGER NOT NULL, key TEXT NOT NULL,
        value TEXT, prev_revision INTEGER NOT NULL, prev_value TEXT, time_ms INTEGER NOT NULL)`,
      "CREATE INDEX log_key_revision ON log (key, revision)",
      "CREATE INDEX kv_key_revision ON kv (key, revision)",
      "INSERT INTO log VALUES (1, 0, '/m/a', 'a1', 0, NULL, 1), (2, 0, '/m/b', 'b2', 0, NULL, 1)",
      "INSERT INTO log VALUES (3, 1, '/m/a', 'a3', 1, 'a1', 1)",
      "INSERT INTO kv VALUES ('/m/a', 'a3', 3), ('/m/b', 'b2', 2)",
    ], "write");
    old.close();
    for (let open = 0; open < 2; open++) {
      const s = await LibsqlStorage.open({ url, maintenanceIntervalMs: 0 });
      try {
        assert.deepEqual(await s.get("/m/a"), { key: "/m/a", value: "a3", revision: 3 });
        assert.deepEqual(await s.get("/m/a", { revision: 2 }), {
          key: "/m/a",
          value: "a1",
          revision: 1,
        });
        const listed = await s.list("/m/", { limit: 1, count: true });
        assert.deepEqual(listed.items.map((kv) => kv.key), ["/m/a"]);
        assert.equal(listed.remaining, 1);
        if (open === 0) {
          assert.equal((await s.create("/m/c", "c4")).revision, 4);
          await s.delete("/m/b", 2);
        }
        assert.deepEqual((await s.list("/m/")).items.map((kv) => kv.value), ["a3", "c4"]);
        assert.equal(await s.currentRevision(), 5);
      } finally {
        await s.close();
      }
    }
    const check = createClient({ url });
    try {
      const rs = await check.execute("SELECT name, sql FROM sqlite_schema WHERE tbl_name = 'kv'");
      const names = rs.rows.map((r) => String(r[0]));
      assert.ok(!names.includes("kv_key_revision"), names.join(", "));
      const table = rs.rows.find((r) => r[0] === "kv");
      assert.ok(table && !/WITHOUT ROWID/i.test(String(table[1])), String(table?.[1]));
    } finally {
      check.close();
    }
  });
});
