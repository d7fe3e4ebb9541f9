import assert from "node:assert/strict";
import { parseBenchFlags, runCreateListBench } from "../../../scripts/bench/create_list.ts";
import { formatReport, summarize } from "../../../scripts/bench/lib/create_list_report.ts";
import { groupCommitDelta, groupCommitTotals } from "../../../scripts/bench/lib/group_commits.ts";

Deno.test("parseBenchFlags() takes defaults and reports every bad flag", async (t) => {
  await t.step("defaults", () => {
    assert.deepEqual(parseBenchFlags([]), {
      objects: 10000,
      concurrency: 16,
      rounds: 5,
      pageSize: 500,
      listRepeats: 5,
      capSeconds: 120,
      valueBytes: 1024,
      etcd: true,
      warmup: 2000,
      protocol: "http/1.1",
    });
  });
  await t.step("smaller run", () => {
    const opts = parseBenchFlags(["--objects=100", "--concurrency", "4", "--no-etcd"]);
    assert.ok(!("errors" in opts));
    assert.equal(opts.objects, 100);
    assert.equal(opts.concurrency, 4);
    assert.equal(opts.etcd, false);
  });
  const bad: Array<[string, string[], RegExp[]]> = [
    ["zero and text", ["--objects=0", "--concurrency=x"], [/--objects/, /--concurrency/]],
    ["fraction", ["--page-size=1.5"], [/--page-size/]],
    ["more rounds than objects", ["--objects=2", "--rounds=3"], [/--rounds/]],
    ["unknown flag", ["--nope"], [/nope/]],
    ["negative warm-up", ["--warmup=-1"], [/--warmup/]],
    ["unknown protocol", ["--protocol=spdy"], [/--protocol/]],
  ];
  for (const [name, args, patterns] of bad) {
    await t.step(name, () => {
      const res = parseBenchFlags(args);
      assert.ok("errors" in res);
      assert.equal(res.errors.length, patterns.length);
      patterns.forEach((p, i) => assert.match(res.errors[i], p));
    });
  }
});

Deno.test("runCreateListBench() creates and lists through the real server", async () => {
  const report = await runCreateListBench({
    objects: 30,
    concurrency: 4,
    rounds: 2,
    pageSize: 7,
    listRepeats: 2,
    capSeconds: 120,
    valueBytes: 512,
    etcd: false,
    warmup: 5,
    protocol: "h2",
  });
  assert.deepEqual(report.rounds.map((r) => r.created), [15, 15]);
  assert.ok(report.rounds.every((r) => r.failed === 0), report.firstCreateError ?? "");
  assert.ok(report.rounds.every((r) => r.raw.rowsPerSecond > 0));
  // The 30 created and the namespace's kube-root-ca.crt (root-ca-cert-publisher).
  assert.deepEqual(report.list.itemsPerList, [31, 31]);
  assert.equal(report.list.pages, 10);
  assert.match(report.etcdSkipped ?? "", /--no-etcd/);
  assert.ok(summarize(report).ratioToRaw > 0);
  const text = formatReport(report);
  assert.match(text, /creates\/s ÷ raw rows\/s/);
  assert.match(text, /list page of 7 p50/);
  assert.match(text, /skipped: disabled with --no-etcd/);
  assert.match(text, /5 untimed warm-up creates first/);
  // Each round's 15 creates went through the server's group commits.
  for (const r of report.rounds) {
    assert.ok(r.commits, "group commits read from /metrics");
    assert.ok(r.commits.commits >= 1 && r.commits.commits <= 15);
    assert.ok(r.commits.writesPerCommit >= 1);
    assert.ok(r.commits.meanMs > 0);
  }
  assert.match(text, /writes per group commit/);
});

Deno.test("groupCommitTotals() and groupCommitDelta() read the storage's group commits", () => {
  const metrics = (inlineCount: number, inlineSum: number, writes: number) =>
    [
      "# HELP apiserver_storage_group_commit_duration_seconds Duration",
      "# TYPE apiserver_storage_group_commit_duration_seconds histogram",
      `apiserver_storage_group_commit_duration_seconds_bucket{where="inline",le="0.001"} 1`,
      `apiserver_storage_group_commit_duration_seconds_sum{where="inline"} ${inlineSum}`,
      `apiserver_storage_group_commit_duration_seconds_count{where="inline"} ${inlineCount}`,
      `apiserver_storage_group_commit_duration_seconds_sum{where="worker"} 0.5`,
      `apiserver_storage_group_commit_duration_seconds_count{where="worker"} 10`,
      `apiserver_storage_group_commit_writes_sum{where="inline"} ${writes}`,
      `apiserver_storage_group_commit_writes_sum{where="worker"} 20`,
      `apiserver_storage_group_commit_writes_count{where="inline"} ${inlineCount}`,
      `apiserver_request_total{verb="POST",code="201"} 7`,
    ].join("\n");
  const before = groupCommitTotals(metrics(100, 0.1, 700));
  assert.deepEqual(before, { commits: 110, writes: 720, seconds: 0.6, inlineSeconds: 0.1 });
  const after = groupCommitTotals(metrics(300, 0.5, 2300));
  const delta = groupCommitDelta(before, after, 2);
  assert.ok(delta);
  assert.equal(delta.commits, 200);
  assert.equal(delta.writesPerCommit, 8);
  assert.ok(Math.abs(delta.meanMs - 2) < 1e-9);
  assert.ok(Math.abs(delta.inlineShare - 0.2) < 1e-9);
  assert.equal(groupCommitDelta(before, before, 2), undefined);
  assert.deepEqual(groupCommitTotals("garbage\n"), {
    commits: 0,
    writes: 0,
    seconds: 0,
    inlineSeconds: 0,
  });
});

Deno.test("runCreateListBench() rejects bad options before starting anything", async () => {
  const base = {
    objects: 10,
    concurrency: 2,
    rounds: 1,
    pageSize: 5,
    listRepeats: 1,
    capSeconds: 10,
    valueBytes: 100,
    etcd: false,
  };
  await assert.rejects(() => runCreateListBench({ ...base, objects: 0 }), /objects/);
  await assert.rejects(() => runCreateListBench({ ...base, rounds: 11 }), /rounds/);
});
