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
import {
  type CreateListOptions,
  type CreateListReport,
  formatReport,
  type ListPhaseResult,
  type RoundResult,
} from "./lib/create_list_report.ts";
import { groupCommitDelta, readGroupCommits } from "./lib/group_commits.ts";
import { readProcStats } from "./lib/proc_stats.ts";
import { runPool } from "./lib/run_pool.ts";
import { percentile } from "./lib/stats.ts";
import { rawLibsqlCeiling } from "./raw_libsql.ts";

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
