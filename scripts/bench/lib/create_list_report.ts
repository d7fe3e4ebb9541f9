/**
 * The create/list benchmark's results ({@link ../create_list.ts}): the options and figures of a
 * run, their medians over rounds, and the summary table the benchmark prints.
 *
 * @module
 */
import type { EtcdPutResult } from "../etcd_anchor.ts";
import type { RawLibsqlResult } from "../raw_libsql.ts";
import type { GroupCommitDelta } from "./group_commits.ts";
import type { ProcStats } from "./proc_stats.ts";
import { median } from "./stats.ts";

/** Options of the create/list benchmark (`runCreateListBench` in {@link ../create_list.ts}). */
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
