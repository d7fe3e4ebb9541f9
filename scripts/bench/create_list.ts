/**
 * The create/list benchmark (`deno task bench`): starts the real API server as a subprocess on
 * loopback, creates ConfigMaps of 1 KiB from concurrent HTTPS clients (keep-alive), then lists
 * them in pages, and prints creates per second, list-page p50 and p99, the server's CPU and
 * RSS, and the same-run anchors with their ratios:
 *
 * - the raw libSQL ceiling ({@link rawLibsqlCeiling}): one 1 KiB row per durable transaction
 *   through `@libsql/client` with the storage's durability setting, at the same concurrency;
 * - where `etcd` is installed, etcd's put rate at the same concurrency ({@link etcdPutRate}).
 *
 * The server first takes `--warmup` untimed creates (in another namespace), so the timed
 * rounds measure compiled code rather than V8 warming up: without it the first round ran at
 * about 70% of the later ones. The machine this runs on pauses for long stretches, so the
 * creates are split into rounds, each followed by both anchors with the same number of writes
 * (A B C, A B C…), and the report quotes medians over rounds and the median of per-round
 * ratios. Five rounds by default: a round lasts one to two seconds, and one session's
 * per-round ÷etcd ratios ranged from 0.77 to 1.78 around run medians of 1.05 to 1.48, so a
 * median of three followed whichever single round a pause hit; a median of five outlasts two
 * disturbed rounds. Every phase is capped in count and time; the run stops by itself.
 *
 * Around each round's creates it reads the server's group-commit metrics
 * (`apiserver_storage_group_commit_*`): writes per transaction, mean transaction time, and the
 * share of wall time spent committing on the server's own thread, where its event loop handles
 * no request. These say whether the creates were bound by that thread or by the commits.
 *
 * Each concurrent client has its own connection, as that many client processes would, over
 * HTTP/1.1 (default: the etcd anchor's protocol, through the same client library) or HTTP/2
 * with `--protocol=h2`. Deno's fetch holds small writes back (Nagle's algorithm), so over
 * HTTP/2 each create's body waits for the server's WINDOW_UPDATE to acknowledge its HEADERS:
 * one more write per request than Go's clients cost the server.
 *
 *   ./scripts/deno task bench [--objects=10000] [--concurrency=16] [--rounds=5]
 *     [--page-size=500] [--list-repeats=5] [--cap-seconds=120] [--value-bytes=1024] [--no-etcd]
 *     [--warmup=2000] [--protocol=http/1.1|h2]
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { etcdAvailable, etcdPutRate, type EtcdPutResult, startEtcd } from "./etcd_anchor.ts";
import {
  adminHeaders,
  adminHttpClient,
  type ApiServerProcess,
  startApiServerProcess,
} from "./lib/apiserver_process.ts";
import { type ProcStats, readProcStats } from "./lib/proc_stats.ts";
import { runPool } from "./lib/run_pool.ts";
import { median, percentile } from "./lib/stats.ts";
import { rawLibsqlCeiling, type RawLibsqlResult } from "./raw_libsql.ts";

/** Options of {@link runCreateListBench}. */
export interface CreateListOptions {
  /** ConfigMaps to create in total (split over the rounds). */
  objects: number;
  /** Concurrent clients, for the creates and both anchors. */
  concurrency: number;
  /** Create/anchor rounds. */
  rounds: number;
  /** Items per list page. */
  pageSize: number;
  /** Full paged lists to time. */
  listRepeats: number;
  /** Cap of every phase, in seconds. */
  capSeconds: number;
  /** Bytes of each ConfigMap as sent (JSON) and of each anchor value. */
  valueBytes: number;
  /** Measure etcd where it is installed. */
  etcd: boolean;
  /** Untimed creates before the first round (JIT warm-up; another namespace). Default 0. */
  warmup?: number;
  /** The clients' protocol: HTTP/1.1 (default) or HTTP/2. */
  protocol?: "h2" | "http/1.1";
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** One create phase and the anchors measured right after it. */
export interface RoundResult {
  /** ConfigMaps created (201) in this round. */
  created: number;
  /** Creates that failed. */
  failed: number;
  /** Created per wall-clock second. */
  createsPerSecond: number;
  /** Median create latency, ms. */
  createP50Ms: number;
  /** Server CPU per create, ms (user + system). */
  serverCpuMsPerCreate: number;
  /** Benchmark-process (client) CPU per create, ms. */
  clientCpuMsPerCreate: number;
  /** Raw libSQL ceiling with as many rows at the same concurrency. */
  raw: RawLibsqlResult;
  /** etcd put rate with as many puts at the same concurrency (absent when skipped). */
  etcd?: EtcdPutResult;
  /** etcd's CPU per put, ms (user + system, all its threads). */
  etcdCpuMsPerPut?: number;
  /** The server's group commits during the creates (from its /metrics), when readable. */
  commits?: GroupCommitDelta;
}

/** The server's group commits over one phase, read from `apiserver_storage_group_commit_*`. */
export interface GroupCommitDelta {
  /** Transactions committed. */
  commits: number;
  /** Writes per transaction (mean). */
  writesPerCommit: number;
  /** Mean duration of one transaction, statements, commit and sync included, ms. */
  meanMs: number;
  /**
   * Share of the phase's wall time spent in transactions on the server's own thread (inline):
   * the time its event loop could not handle requests.
   */
  inlineShare: number;
}

/** Sums of the group-commit series of a Prometheus text exposition. */
export interface GroupCommitTotals {
  commits: number;
  writes: number;
  seconds: number;
  inlineSeconds: number;
}

/** Reads the group-commit totals (all `where` labels) out of a `/metrics` text. */
export function groupCommitTotals(text: string): GroupCommitTotals {
  const totals: GroupCommitTotals = { commits: 0, writes: 0, seconds: 0, inlineSeconds: 0 };
  const series =
    /^apiserver_storage_group_commit_(duration_seconds_sum|duration_seconds_count|writes_sum)\{where="([a-z]+)"\} (\S+)$/;
  for (const line of text.split("\n")) {
    const m = series.exec(line);
    if (!m) continue;
    const v = Number(m[3]);
    if (!Number.isFinite(v)) continue;
    if (m[1] === "duration_seconds_count") totals.commits += v;
    else if (m[1] === "writes_sum") totals.writes += v;
    else {
      totals.seconds += v;
      if (m[2] === "inline") totals.inlineSeconds += v;
    }
  }
  return totals;
}

/** The group commits between two readings over `wallSeconds`; undefined without commits. */
export function groupCommitDelta(
  before: GroupCommitTotals,
  after: GroupCommitTotals,
  wallSeconds: number,
): GroupCommitDelta | undefined {
  const commits = after.commits - before.commits;
  if (!(commits > 0) || !(wallSeconds > 0)) return undefined;
  return {
    commits,
    writesPerCommit: (after.writes - before.writes) / commits,
    meanMs: (after.seconds - before.seconds) * 1000 / commits,
    inlineShare: (after.inlineSeconds - before.inlineSeconds) / wallSeconds,
  };
}

/** The list phase. */
export interface ListPhaseResult {
  /** Pages fetched. */
  pages: number;
  /** Median page latency (request to last byte), ms. */
  pageP50Ms: number;
  /** 99th percentile page latency, ms (mostly VM pauses on the development machine). */
  pageP99Ms: number;
  /** Items seen by each full paged list. */
  itemsPerList: number[];
  /** Server CPU per page, ms. */
  serverCpuMsPerPage: number;
}

/** The benchmark's report. */
export interface CreateListReport {
  options: Omit<CreateListOptions, "log">;
  rounds: RoundResult[];
  list: ListPhaseResult;
  /** Server memory after the run. */
  server: ProcStats | undefined;
  /** Why etcd was not measured, when it was not. */
  etcdSkipped?: string;
  /** First create error, if any. */
  firstCreateError?: string;
}

const NAMESPACE = "bench";
const WARMUP_NAMESPACE = "bench-warmup";

/** Runs the benchmark. Throws when the server cannot start or nothing could be created. */
export async function runCreateListBench(opts: CreateListOptions): Promise<CreateListReport> {
  for (
    const name of [
      "objects",
      "concurrency",
      "rounds",
      "pageSize",
      "listRepeats",
      "capSeconds",
      "valueBytes",
    ] as const
  ) {
    const v = opts[name];
    if (!Number.isSafeInteger(v) || v <= 0) {
      throw new RangeError(`${name} must be a positive integer, got ${v}`);
    }
  }
  if (opts.rounds > opts.objects) throw new RangeError("rounds must not exceed objects");
  const log = opts.log ?? (() => {});
  const capMs = opts.capSeconds * 1000;
  const dir = await Deno.makeTempDir({ prefix: "bench-create-list-" });
  let etcdSkipped: string | undefined;
  if (!opts.etcd) etcdSkipped = "disabled with --no-etcd";
  else if (!await etcdAvailable()) {
    etcdSkipped = "etcd is not installed (apt-get install etcd-server etcd-client)";
  }
  let server: ApiServerProcess | undefined;
  // One HTTP client (one connection) per concurrent worker, as that many client processes
  // would have: over HTTP/2 a shared client would multiplex them all on one connection.
  const http = { clients: [] as Deno.HttpClient[] };
  try {
    log("starting the API server");
    server = await startApiServerProcess({ dataDir: `${dir}/apiserver` });
    const http2 = opts.protocol === "h2";
    for (let w = 0; w < opts.concurrency; w++) {
      http.clients.push(adminHttpClient(server, { http2 }));
    }
    const srv = server;
    const call = async (path: string, init: RequestInit = {}, worker = 0): Promise<Response> => {
      const headers = adminHeaders(srv, init.headers);
      return await fetch(srv.url + path, { ...init, headers, client: http.clients[worker] });
    };
    const ns = await call("/api/v1/namespaces", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } }),
    });
    const nsText = await ns.text();
    if (ns.status !== 201) throw new Error(`creating namespace: ${ns.status} ${nsText}`);

    const bodyOf = configMapBody(opts.valueBytes);
    const warmup = opts.warmup ?? 0;
    if (warmup > 0) {
      log(`warm-up: ${warmup} untimed creates`);
      const wns = await call("/api/v1/namespaces", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: WARMUP_NAMESPACE },
        }),
      });
      await wns.text();
      if (wns.status !== 201) throw new Error(`creating namespace: ${wns.status}`);
      const pool = await runPool(
        { count: warmup, concurrency: opts.concurrency, capMs, offset: 0 },
        async (i, worker) => {
          const res = await call(`/api/v1/namespaces/${WARMUP_NAMESPACE}/configmaps`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: bodyOf(i),
          }, worker);
          await res.text();
          if (res.status !== 201) throw new Error(`warm-up create answered ${res.status}`);
        },
      );
      if (pool.firstError !== undefined) throw pool.firstError;
    }
    const rounds: RoundResult[] = [];
    let firstCreateError: string | undefined;
    let offset = 0;
    for (let r = 0; r < opts.rounds; r++) {
      const count = Math.floor(opts.objects * (r + 1) / opts.rounds) -
        Math.floor(opts.objects * r / opts.rounds);
      log(`round ${r + 1}/${opts.rounds}: ${count} creates`);
      const commitsBefore = await readGroupCommits(call);
      const before = await readProcStats(srv.pid);
      const clientBefore = process.cpuUsage();
      const pool = await runPool(
        { count, concurrency: opts.concurrency, capMs, offset },
        async (i, worker) => {
          const res = await call(`/api/v1/namespaces/${NAMESPACE}/configmaps`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: bodyOf(i),
          }, worker);
          const text = await res.text();
          if (res.status !== 201) throw new Error(`create answered ${res.status}: ${text}`);
        },
      );
      const clientCpu = process.cpuUsage(clientBefore);
      const after = await readProcStats(srv.pid);
      const commitsAfter = await readGroupCommits(call);
      offset += count;
      if (pool.firstError !== undefined) firstCreateError ??= String(pool.firstError);
      const serverCpuMs = before && after ? (after.cpuSeconds - before.cpuSeconds) * 1000 : NaN;
      log(`round ${r + 1}: raw libSQL ceiling, ${count} rows`);
      const raw = await rawLibsqlCeiling({
        dir,
        rows: count,
        concurrency: opts.concurrency,
        valueBytes: opts.valueBytes,
      });
      let etcd: EtcdPutResult | undefined;
      let etcdCpuMsPerPut = NaN;
      if (etcdSkipped === undefined) {
        log(`round ${r + 1}: etcd, ${count} puts`);
        // A fresh etcd per round: an idle etcd holding data burns CPU the other phases need.
        const e = await startEtcd(dir);
        try {
          const etcdBefore = await readProcStats(e.pid);
          etcd = await etcdPutRate({
            url: e.url,
            puts: count,
            concurrency: opts.concurrency,
            valueBytes: opts.valueBytes,
            capMs,
            tag: `r${r}`,
          });
          const etcdAfter = await readProcStats(e.pid);
          if (etcdBefore && etcdAfter) {
            etcdCpuMsPerPut = (etcdAfter.cpuSeconds - etcdBefore.cpuSeconds) * 1000 /
              Math.max(1, etcd.puts);
          }
        } finally {
          await e.stop();
        }
      }
      const round: RoundResult = {
        created: pool.done,
        failed: pool.failed,
        createsPerSecond: pool.done / pool.seconds,
        createP50Ms: percentile(pool.latenciesMs, 50),
        serverCpuMsPerCreate: serverCpuMs / Math.max(1, pool.done),
        clientCpuMsPerCreate: (clientCpu.user + clientCpu.system) / 1000 / Math.max(1, pool.done),
        raw,
      };
      const commits = commitsBefore && commitsAfter
        ? groupCommitDelta(commitsBefore, commitsAfter, pool.seconds)
        : undefined;
      if (commits) round.commits = commits;
      if (etcd) {
        round.etcd = etcd;
        round.etcdCpuMsPerPut = etcdCpuMsPerPut;
      }
      rounds.push(round);
    }
    if (rounds.every((r) => r.created === 0)) {
      throw new Error(`no ConfigMap could be created: ${firstCreateError}`);
    }

    log(`listing ${opts.listRepeats}× in pages of ${opts.pageSize}`);
    const list = await listPhase(call, opts.pageSize, opts.listRepeats, capMs, srv.pid);
    const report: CreateListReport = {
      options: {
        objects: opts.objects,
        concurrency: opts.concurrency,
        rounds: opts.rounds,
        pageSize: opts.pageSize,
        listRepeats: opts.listRepeats,
        capSeconds: opts.capSeconds,
        valueBytes: opts.valueBytes,
        etcd: opts.etcd,
        warmup: opts.warmup ?? 0,
      },
      rounds,
      list,
      server: await readProcStats(srv.pid),
    };
    if (etcdSkipped !== undefined) report.etcdSkipped = etcdSkipped;
    if (firstCreateError !== undefined) report.firstCreateError = firstCreateError;
    return report;
  } finally {
    for (const c of http.clients) c.close();
    await server?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The server's group-commit totals, or undefined when /metrics cannot be read. */
async function readGroupCommits(
  call: (path: string) => Promise<Response>,
): Promise<GroupCommitTotals | undefined> {
  try {
    const res = await call("/metrics");
    const text = await res.text();
    return res.status === 200 ? groupCommitTotals(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A function giving the JSON body of ConfigMap number i, `valueBytes` long. */
export function configMapBody(valueBytes: number): (i: number) => string {
  const make = (i: number, pad: string) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `cm-${String(i).padStart(7, "0")}`, labels: { app: "bench" } },
      data: { payload: pad },
    });
  const padLength = Math.max(0, valueBytes - make(0, "").length);
  const pad = "x".repeat(padLength);
  return (i) => make(i, pad);
}

async function listPhase(
  call: (path: string) => Promise<Response>,
  pageSize: number,
  repeats: number,
  capMs: number,
  pid: number,
): Promise<ListPhaseResult> {
  const latencies: number[] = [];
  const itemsPerList: number[] = [];
  const start = performance.now();
  const before = await readProcStats(pid);
  for (let rep = 0; rep < repeats && performance.now() - start < capMs; rep++) {
    let items = 0;
    let token: string | undefined;
    do {
      const q = new URLSearchParams({ limit: String(pageSize) });
      if (token) q.set("continue", token);
      const t0 = performance.now();
      const res = await call(`/api/v1/namespaces/${NAMESPACE}/configmaps?${q}`);
      const text = await res.text();
      latencies.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`list answered ${res.status}: ${text.slice(0, 300)}`);
      const page = JSON.parse(text) as { items: unknown[]; metadata: { continue?: string } };
      items += page.items.length;
      token = page.metadata.continue || undefined;
    } while (token && performance.now() - start < capMs);
    itemsPerList.push(items);
  }
  const after = await readProcStats(pid);
  return {
    pages: latencies.length,
    pageP50Ms: percentile(latencies, 50),
    pageP99Ms: percentile(latencies, 99),
    itemsPerList,
    serverCpuMsPerPage: before && after
      ? (after.cpuSeconds - before.cpuSeconds) * 1000 / Math.max(1, latencies.length)
      : NaN,
  };
}

/** The median over rounds of each figure and of each same-round ratio. */
export interface ReportSummary {
  createsPerSecond: number;
  createP50Ms: number;
  serverCpuMsPerCreate: number;
  clientCpuMsPerCreate: number;
  rawRowsPerSecond: number;
  rawP50Ms: number;
  etcdPutsPerSecond?: number;
  etcdP50Ms?: number;
  etcdCpuMsPerPut?: number;
  /** Median of per-round creates/s ÷ raw rows/s. */
  ratioToRaw: number;
  /** Median of per-round creates/s ÷ etcd puts/s. */
  ratioToEtcd?: number;
  /** Medians of the rounds' group-commit figures (absent when /metrics was unreadable). */
  writesPerCommit?: number;
  commitMeanMs?: number;
  commitInlineShare?: number;
}

/** Medians over the rounds of a report. */
export function summarize(report: CreateListReport): ReportSummary {
  const rs = report.rounds;
  const s: ReportSummary = {
    createsPerSecond: median(rs.map((r) => r.createsPerSecond)),
    createP50Ms: median(rs.map((r) => r.createP50Ms)),
    serverCpuMsPerCreate: median(rs.map((r) => r.serverCpuMsPerCreate)),
    clientCpuMsPerCreate: median(rs.map((r) => r.clientCpuMsPerCreate)),
    rawRowsPerSecond: median(rs.map((r) => r.raw.rowsPerSecond)),
    rawP50Ms: median(rs.map((r) => r.raw.p50Ms)),
    ratioToRaw: median(rs.map((r) => r.createsPerSecond / r.raw.rowsPerSecond)),
  };
  const withCommits = rs.filter((r) => r.commits !== undefined);
  if (withCommits.length > 0) {
    s.writesPerCommit = median(withCommits.map((r) => r.commits!.writesPerCommit));
    s.commitMeanMs = median(withCommits.map((r) => r.commits!.meanMs));
    s.commitInlineShare = median(withCommits.map((r) => r.commits!.inlineShare));
  }
  const withEtcd = rs.filter((r) => r.etcd && r.etcd.puts > 0);
  if (withEtcd.length > 0) {
    s.etcdPutsPerSecond = median(withEtcd.map((r) => r.etcd!.putsPerSecond));
    s.etcdP50Ms = median(withEtcd.map((r) => r.etcd!.p50Ms));
    s.etcdCpuMsPerPut = median(withEtcd.map((r) => r.etcdCpuMsPerPut ?? NaN));
    s.ratioToEtcd = median(withEtcd.map((r) => r.createsPerSecond / r.etcd!.putsPerSecond));
  }
  return s;
}

/** Renders a report as the summary table the benchmark prints. */
export function formatReport(report: CreateListReport): string {
  const o = report.options;
  const s = summarize(report);
  const f0 = (n: number | undefined) => n === undefined || Number.isNaN(n) ? "-" : n.toFixed(0);
  const f2 = (n: number | undefined) => n === undefined || Number.isNaN(n) ? "-" : n.toFixed(2);
  const f3 = (n: number | undefined) => n === undefined || Number.isNaN(n) ? "-" : n.toFixed(3);
  const mib = (n: number | undefined) => n === undefined ? "-" : (n / 1048576).toFixed(0);
  const lines: string[] = [];
  lines.push(
    `create/list benchmark: ${o.objects} ConfigMaps of ${o.valueBytes} B, ` +
      `${o.concurrency} concurrent HTTPS clients, ${o.rounds} rounds, ` +
      `list in pages of ${o.pageSize} ×${o.listRepeats}; ${
        o.warmup ?? 0
      } untimed warm-up creates first`,
  );
  lines.push("");
  lines.push("per round (creates, then the anchors with as many writes at the same concurrency):");
  const header = [
    "round",
    "created",
    "creates/s",
    "create p50 ms",
    "srv CPU ms/create",
    "raw rows/s",
    "raw p50 ms",
    "etcd puts/s",
    "etcd p50 ms",
    "÷raw",
    "÷etcd",
  ];
  const rows = report.rounds.map((r, i) => [
    String(i + 1),
    `${r.created}${r.failed ? ` (${r.failed} failed)` : ""}`,
    f0(r.createsPerSecond),
    f2(r.createP50Ms),
    f3(r.serverCpuMsPerCreate),
    f0(r.raw.rowsPerSecond),
    f2(r.raw.p50Ms),
    f0(r.etcd?.putsPerSecond),
    f2(r.etcd?.p50Ms),
    f2(r.createsPerSecond / r.raw.rowsPerSecond),
    r.etcd ? f2(r.createsPerSecond / r.etcd.putsPerSecond) : "-",
  ]);
  lines.push(...table([header, ...rows]));
  lines.push("");
  const l = report.list;
  const pass = (ok: boolean | undefined) => ok === undefined ? "n/a" : ok ? "PASS" : "MISS";
  lines.push("summary (medians over rounds; ratios are medians of same-round ratios):");
  lines.push(...table([
    ["figure", "value", "target", ""],
    ["creates/s", f0(s.createsPerSecond), "", ""],
    ["create p50 (ms)", f2(s.createP50Ms), "", ""],
    ["server CPU per create (ms)", f3(s.serverCpuMsPerCreate), "", ""],
    ["client CPU per create (ms)", f3(s.clientCpuMsPerCreate), "", ""],
    ["writes per group commit", f2(s.writesPerCommit), "", ""],
    ["group commit mean (ms)", f3(s.commitMeanMs), "", ""],
    [
      "wall time in inline commits",
      s.commitInlineShare === undefined ? "-" : `${(s.commitInlineShare * 100).toFixed(0)}%`,
      "",
      "",
    ],
    ["raw libSQL 1 row/txn rows/s", f0(s.rawRowsPerSecond), "", ""],
    ["raw libSQL txn p50 (ms)", f2(s.rawP50Ms), "", ""],
    ["creates/s ÷ raw rows/s", f2(s.ratioToRaw), "≥ 0.50", pass(s.ratioToRaw >= 0.5)],
    [
      "etcd puts/s",
      report.etcdSkipped ? `skipped: ${report.etcdSkipped}` : f0(s.etcdPutsPerSecond),
      "",
      "",
    ],
    ["etcd put p50 (ms)", f2(s.etcdP50Ms), "", ""],
    ["etcd CPU per put (ms)", f3(s.etcdCpuMsPerPut), "", ""],
    [
      "creates/s ÷ etcd puts/s",
      f2(s.ratioToEtcd),
      "> 1.00",
      pass(s.ratioToEtcd === undefined ? undefined : s.ratioToEtcd > 1),
    ],
    [`list page of ${o.pageSize} p50 (ms)`, f2(l.pageP50Ms), "< 20", pass(l.pageP50Ms < 20)],
    [`list page of ${o.pageSize} p99 (ms)`, f2(l.pageP99Ms), "(VM pauses)", ""],
    ["list pages timed", String(l.pages), "", ""],
    ["items per full list", l.itemsPerList.join(", "), String(o.objects), ""],
    ["server CPU per page (ms)", f2(l.serverCpuMsPerPage), "", ""],
    [
      "server RSS now / peak (MiB)",
      `${mib(report.server?.rssBytes)} / ${mib(report.server?.peakRssBytes)}`,
      "",
      "",
    ],
  ]));
  if (report.firstCreateError) lines.push(`first create error: ${report.firstCreateError}`);
  return lines.join("\n");
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  const fmt = (r: string[]) => "| " + r.map((cell, c) => cell.padEnd(widths[c])).join(" | ") + " |";
  return [
    fmt(rows[0]),
    "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|",
    ...rows.slice(1).map(fmt),
  ];
}

/** Parses the command-line flags into options; returns the problems instead when any. */
export function parseBenchFlags(args: string[]): CreateListOptions | { errors: string[] } {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        objects: { type: "string", default: "10000" },
        concurrency: { type: "string", default: "16" },
        rounds: { type: "string", default: "5" },
        "page-size": { type: "string", default: "500" },
        "list-repeats": { type: "string", default: "5" },
        "cap-seconds": { type: "string", default: "120" },
        "value-bytes": { type: "string", default: "1024" },
        "no-etcd": { type: "boolean", default: false },
        warmup: { type: "string", default: "2000" },
        protocol: { type: "string", default: "http/1.1" },
      },
    }));
  } catch (e) {
    return { errors: [(e as Error).message] };
  }
  const errors: string[] = [];
  const int = (flag: keyof typeof values): number => {
    const text = String(values[flag]);
    const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n <= 0) errors.push(`--${flag} must be a positive integer`);
    return n;
  };
  const opts: CreateListOptions = {
    objects: int("objects"),
    concurrency: int("concurrency"),
    rounds: int("rounds"),
    pageSize: int("page-size"),
    listRepeats: int("list-repeats"),
    capSeconds: int("cap-seconds"),
    valueBytes: int("value-bytes"),
    etcd: !values["no-etcd"],
    warmup: /^[0-9]+$/.test(String(values.warmup)) ? Number(values.warmup) : NaN,
    protocol: values.protocol === "h2" ? "h2" : "http/1.1",
  };
  if (values.protocol !== "h2" && values.protocol !== "http/1.1") {
    errors.push("--protocol must be h2 or http/1.1");
  }
  if (!Number.isSafeInteger(opts.warmup)) errors.push("--warmup must be a non-negative integer");
  if (errors.length === 0 && opts.rounds > opts.objects) {
    errors.push("--rounds must not exceed --objects");
  }
  return errors.length > 0 ? { errors } : opts;
}

if (import.meta.main) {
  const parsed = parseBenchFlags(Deno.args);
  if ("errors" in parsed) {
    for (const e of parsed.errors) console.error(`error: ${e}`);
    Deno.exit(2);
  }
  const t0 = performance.now();
  const report = await runCreateListBench({
    ...parsed,
    log: (line) => console.error(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${line}`),
  });
  console.log(formatReport(report));
}
