/**
 * Watch fan-out benchmark (issue 3's targets). Starts the API server as a subprocess
 * (embedded libSQL), then:
 *
 * 1. the watch cache's memory per 10,000 1 KiB objects (in this process, heap delta);
 * 2. a baseline: one watcher (in one client subprocess) while a writer makes `--rate`
 *    changes/s for `--baseline` s;
 * 3. `--watchers` watchers on one namespace, spread over `--clients` client subprocesses
 *    (`lib/watch_client.ts`), while the writer makes `--rate` changes/s for `--duration` s.
 *
 * Latency method: every write is a PUT (HTTP/1.1) whose response carries the new
 * resourceVersion; the writer (this process) records when it sent the PUT and when the response arrived (the
 * acknowledgement). Each client records when it read each event's bytes and the event's
 * resourceVersion, so every received event is matched to exactly one write. The commit
 * lies between send and acknowledgement, so `receipt − ack` is a lower bound on
 * commit→receipt (negative when the event outran the response) and `receipt − send` an upper
 * bound; both are printed, with their p50 ratio against the single watcher of the same run.
 * Clocks are `performance.timeOrigin + performance.now()` in each process; the offset of each
 * client's clock is measured by ping (the reply time against the midpoint of the round trip,
 * smallest round trip of several) and subtracted.
 *
 * Each watcher must receive exactly the acknowledged writes, in increasing resourceVersion;
 * any other outcome is reported. Server and client CPU and RSS come from `/proc`, sampled
 * every 250 ms; memory per idle watcher is the server's RSS growth after opening them.
 *
 * Protocol (`--protocol`): `h2` (default), as client-go does: each client process holds one
 * HTTP/2 connection and its watches are streams on it; `http/1.1`: one TLS connection per
 * watch.
 *
 * CPU contention (`--cpu-hog`): a busy process (a loop in another Deno process) runs beside
 * the benchmark from start to end, taking about one core. The server is then expected to
 * degrade gracefully: watchers that cannot keep up are ended one by one, each when its own
 * buffer overflows, and the others keep their delivery latency. Beside the figures of every
 * run, the report gives the delivery latency of the watchers that were not ended and how the
 * ended ones were spread in time (the most ended within any one second).
 *
 * Usage: ./scripts/deno run -A --v8-flags=--expose-gc scripts/bench/watch.ts [--watchers=1000]
 *        [--clients=4] [--rate=200] [--duration=30] [--baseline=10] [--objects=100]
 *        [--protocol=h2|http/1.1] [--cpu-hog]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { WatchCache } from "../../apiserver/watch/watch_cache.ts";
import {
  adminHeaders,
  adminHttpClient,
  type ApiServerProcess,
  startApiServerProcess,
} from "./lib/apiserver_process.ts";
import { readProcStats } from "./lib/proc_stats.ts";
import { wallNow } from "./lib/wall_now.ts";
import type { AckedWrite, FinishReply, WatchClientConfig } from "./lib/watch_client.ts";
import { ClientProcess } from "./lib/watch_client_process.ts";

const { values } = parseArgs({
  options: {
    watchers: { type: "string", default: "1000" },
    clients: { type: "string", default: "4" },
    rate: { type: "string", default: "200" },
    duration: { type: "string", default: "30" },
    baseline: { type: "string", default: "10" },
    objects: { type: "string", default: "100" },
    protocol: { type: "string", default: "h2" },
    "cpu-hog": { type: "boolean", default: false },
  },
});
const PROTOCOL = values.protocol as "h2" | "http/1.1";
if (PROTOCOL !== "h2" && PROTOCOL !== "http/1.1") {
  console.error("--protocol must be h2 or http/1.1");
  Deno.exit(2);
}
const WATCHERS = Number(values.watchers);
const CLIENTS = Number(values.clients);
const RATE = Number(values.rate);
const DURATION = Number(values.duration);
const BASELINE = Number(values.baseline);
const OBJECTS = Number(values.objects);
for (const [name, v] of Object.entries({ WATCHERS, CLIENTS, RATE, DURATION, BASELINE, OBJECTS })) {
  if (!(Number.isFinite(v) && v > 0)) {
    console.error(`--${name.toLowerCase()} must be a positive number`);
    Deno.exit(2);
  }
}
const NS = "bench";
const PATH = `/api/v1/namespaces/${NS}/configmaps`;
const ROOT = new URL("../../", import.meta.url).pathname;

// ---- 1. cache memory per 10,000 1 KiB objects ----
function cacheMemory(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage().heapUsed;
  const cache = new WatchCache("/registry/core/configmaps/", {
    apiVersion: "v1",
    kind: "ConfigMap",
    fieldsOf: (o) => ({ "metadata.name": o.metadata.name ?? "", "metadata.namespace": "ns" }),
  }, { windowMs: 300_000, maxEvents: 102_400 });
  const filler = "x".repeat(1024 - 200);
  const items = [];
  for (let i = 0; i < 10_000; i++) {
    const key = `/registry/core/configmaps/ns/cm-${i}`;
    items.push({
      key,
      revision: i + 1,
      value: JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: `cm-${i}`,
          namespace: "ns",
          uid: crypto.randomUUID(),
          labels: { a: "b" },
        },
        data: { filler },
      }),
    });
  }
  cache.reset(items, 10_000, Date.now());
  items.length = 0;
  gc?.();
  const after = Deno.memoryUsage().heapUsed;
  if (cache.size !== 10_000) throw new Error("cache size");
  return after - before;
}

// ---- /proc sampling ----
interface Sample {
  at: number;
  serverCpu: number;
  clientCpu: number;
  rss: number;
}

async function sample(server: number, clients: number[]): Promise<Sample> {
  const [s, ...cs] = await Promise.all([server, ...clients].map((p) => readProcStats(p)));
  return {
    at: wallNow(),
    serverCpu: s?.cpuSeconds ?? NaN,
    clientCpu: cs.reduce((n, c) => n + (c?.cpuSeconds ?? NaN), 0),
    rss: s?.rssBytes ?? NaN,
  };
}

/** The sample taken closest after `at`. */
function sampleAt(samples: Sample[], at: number): Sample {
  return samples.find((s) => s.at >= at) ?? samples[samples.length - 1];
}

// ---- writer ----
type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

async function runWriter(f: Fetch, seconds: number): Promise<AckedWrite[]> {
  const acked: AckedWrite[] = [];
  const total = Math.round(seconds * RATE);
  const start = performance.now();
  const inflight = new Set<Promise<void>>();
  let failure: unknown;
  for (let i = 0; i < total && failure === undefined; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const name = `obj-${i % OBJECTS}`;
    const p = (async () => {
      const body = JSON.stringify({ metadata: { name }, data: { seq: String(i + 1) } });
      const sentAt = wallNow();
      const res = await f(`${PATH}/${name}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body,
      });
      const text = await res.text();
      const ackedAt = wallNow();
      if (res.status !== 200) throw new Error(`write answered ${res.status}: ${text}`);
      const rv = Number(
        (JSON.parse(text) as { metadata: { resourceVersion: string } })
          .metadata.resourceVersion,
      );
      acked.push([rv, sentAt, ackedAt]);
    })().catch((e) => {
      failure ??= e;
    });
    inflight.add(p);
    p.finally(() => inflight.delete(p));
    if (inflight.size >= 64) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  if (failure !== undefined) throw failure;
  return acked;
}

// ---- one phase ----
interface PhaseResult {
  writes: number;
  received: number;
  expected: number;
  fromAck: { p50: number; p99: number };
  fromSend: { p50: number; p99: number };
  /** Per write, last receipt − first receipt among all watchers. */
  spread: { p50: number; p99: number };
  serverCpuSeconds: number;
  clientCpuSeconds: number;
  /** The machine's 1-minute load average at the end. */
  load: number;
  eventsPerSecond: number;
  serverCpuPercent: number;
  clientCpuPercent: number;
  rss: number;
  peakRss: number;
  perIdleWatcher: number;
  missing: number;
  reordered: number;
  ended: number;
  /** The most watchers ended within any one second. */
  endedInOneSecond: number;
  /** receipt − ack of the watchers that were not ended nor failed. */
  survivors: { count: number; p50: number; p99: number };
  unknown: number;
  failed: number;
  firstError?: string;
  maxClockOffset: number;
  maxRtt: number;
}

async function phase(
  server: ApiServerProcess,
  f: Fetch,
  watchers: number,
  clientCount: number,
  seconds: number,
  tmp: string,
): Promise<PhaseResult> {
  const config: WatchClientConfig = {
    url: server.url,
    caPem: server.caPem,
    token: server.token,
    clientCertPem: server.clientCertPem,
    clientKeyPem: server.clientKeyPem,
    path: PATH,
    protocol: PROTOCOL,
  };
  const clients = Array.from({ length: clientCount }, () => new ClientProcess(config));
  try {
    await Promise.all(clients.map((c) => c.calibrate()));
    const list = await f(`${PATH}?limit=1`);
    const rv = (await list.json()).metadata.resourceVersion as string;
    const rss0 = (await readProcStats(server.pid))!.rssBytes;
    await Promise.all(clients.map((c, i) => {
      const count = Math.floor(watchers / clientCount) + (i < watchers % clientCount ? 1 : 0);
      return c.send({ op: "open", count, resourceVersion: rv });
    }));
    await new Promise((r) => setTimeout(r, 3000));
    const rss1 = (await readProcStats(server.pid))!.rssBytes;

    const pids = clients.map((c) => c.pid);
    const samples: Sample[] = [await sample(server.pid, pids)];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await new Promise((r) => setTimeout(r, 250));
        samples.push(await sample(server.pid, pids));
      }
    })();
    const t0 = wallNow();
    let writes: AckedWrite[];
    let replies: FinishReply[];
    try {
      writes = await runWriter(f, seconds);
      replies = await Promise.all(clients.map((c, i) =>
        c.send<FinishReply>({
          op: "finish",
          writes,
          timeoutMs: 60_000,
          outFile: `${tmp}/latencies-${i}.bin`,
        })
      ));
    } finally {
      sampling = false;
      await sampler;
    }

    // Latencies, with each client's clock offset removed; per write, the first and last
    // receipt among all watchers.
    const total = replies.reduce((n, r) => n + r.latencies, 0);
    const fromAck = new Float64Array(total);
    const fromSend = new Float64Array(total);
    const earliest = new Float64Array(writes.length).fill(Infinity);
    const latest = new Float64Array(writes.length).fill(-Infinity);
    let k = 0;
    for (let i = 0; i < replies.length; i++) {
      const n = replies[i].latencies;
      const bytes = await Deno.readFile(`${tmp}/latencies-${i}.bin`);
      const lat = new Float64Array(bytes.buffer, bytes.byteOffset, n * 2 + writes.length * 2);
      const off = clients[i].offset;
      for (let j = 0; j < n; j++) {
        fromAck[k + j] = lat[j] - off;
        fromSend[k + j] = lat[n + j] - off;
      }
      for (let j = 0; j < writes.length; j++) {
        const lo = lat[n * 2 + j] - off;
        const hi = lat[n * 2 + writes.length + j] - off;
        if (lo < earliest[j]) earliest[j] = lo;
        if (hi > latest[j]) latest[j] = hi;
      }
      k += n;
    }
    fromAck.sort();
    fromSend.sort();
    const survivorTotal = replies.reduce((n, r) => n + r.survivorLatencies, 0);
    const survivorLat = new Float64Array(survivorTotal);
    let ks = 0;
    for (let i = 0; i < replies.length; i++) {
      const r = replies[i];
      const bytes = await Deno.readFile(`${tmp}/latencies-${i}.bin`);
      const all = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
      const from = r.latencies * 2 + writes.length * 2;
      for (let j = 0; j < r.survivorLatencies; j++) {
        survivorLat[ks++] = all[from + j] - clients[i].offset;
      }
    }
    survivorLat.sort();
    const endTimes = replies.flatMap((r, i) => r.endedAt.map((t) => t - clients[i].offset))
      .sort((a, b) => a - b);
    let endedInOneSecond = 0;
    for (let a = 0, b = 0; b < endTimes.length; b++) {
      while (endTimes[b] - endTimes[a] > 1000) a++;
      endedInOneSecond = Math.max(endedInOneSecond, b - a + 1);
    }
    const spread = new Float64Array(writes.length);
    for (let j = 0; j < writes.length; j++) spread[j] = latest[j] - earliest[j];
    spread.sort();
    const pick = sortedPct;

    const lastAt = Math.max(...replies.map((r) => r.lastAt));
    const end = sampleAt(samples, lastAt);
    const begin = samples[0];
    const span = (end.at - begin.at) / 1000;
    const received = replies.reduce((n, r) => n + r.received, 0);
    return {
      writes: writes.length,
      received,
      expected: writes.length * watchers,
      fromAck: { p50: pick(fromAck, 50), p99: pick(fromAck, 99) },
      fromSend: { p50: pick(fromSend, 50), p99: pick(fromSend, 99) },
      spread: { p50: pick(spread, 50), p99: pick(spread, 99) },
      serverCpuSeconds: end.serverCpu - begin.serverCpu,
      clientCpuSeconds: end.clientCpu - begin.clientCpu,
      load: loadAverage(),
      eventsPerSecond: received / ((lastAt - t0) / 1000),
      serverCpuPercent: ((end.serverCpu - begin.serverCpu) / span) * 100,
      clientCpuPercent: ((end.clientCpu - begin.clientCpu) / span) * 100,
      rss: end.rss,
      peakRss: Math.max(...samples.map((s) => s.rss)),
      perIdleWatcher: (rss1 - rss0) / watchers,
      missing: replies.reduce((n, r) => n + r.missing, 0),
      reordered: replies.reduce((n, r) => n + r.reordered, 0),
      ended: replies.reduce((n, r) => n + r.ended, 0),
      endedInOneSecond,
      survivors: {
        count: watchers - replies.reduce((n, r) => n + r.ended + r.failed, 0),
        p50: pick(survivorLat, 50),
        p99: pick(survivorLat, 99),
      },
      unknown: replies.reduce((n, r) => n + r.unknown, 0),
      failed: replies.reduce((n, r) => n + r.failed, 0),
      firstError: replies.find((r) => r.firstError)?.firstError,
      maxClockOffset: Math.max(...clients.map((c) => Math.abs(c.offset))),
      maxRtt: Math.max(...clients.map((c) => c.rtt)),
    };
  } finally {
    await Promise.all(clients.map((c) => c.exit()));
  }
}

/** The 1-minute load average (runnable tasks; this machine's cores are shared). */
function loadAverage(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return NaN;
  }
}

/** Nearest-rank percentile of an already sorted array. */
function sortedPct(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

function ms(x: number): string {
  return `${x.toFixed(2)} ms`;
}

// ---- main ----
const mem = cacheMemory();
console.log(
  `cache memory per 10,000 1 KiB objects: ${(mem / 1024 / 1024).toFixed(1)} MiB ` +
    `(${(mem / 10_000).toFixed(0)} bytes per object, heap delta)`,
);

const tmp = await Deno.makeTempDir({ prefix: "watch-bench-" });
const server = await startApiServerProcess({ dataDir: `${tmp}/data` });
// The writer speaks HTTP/1.1: each PUT leaves in one write. Over HTTP/2 Deno's fetch holds the
// body back until the server acknowledges its HEADERS, a round trip before the commit that
// only widens the upper bound ("from send").
const http = adminHttpClient(server, { http2: false });
const f: Fetch = (path, init = {}) =>
  fetch(server.url + path, { ...init, headers: adminHeaders(server, init.headers), client: http });
const hog = values["cpu-hog"]
  ? new Deno.Command(`${ROOT}scripts/deno`, {
    args: ["eval", "for (;;) {}"],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).spawn()
  : undefined;
if (hog) console.log(`CPU hog: a busy process (pid ${hog.pid}) runs beside the benchmark`);
try {
  const ns = await f("/api/v1/namespaces", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name: NS } }),
  });
  await ns.body?.cancel();
  for (let i = 0; i < OBJECTS; i++) {
    const r = await f(PATH, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: `obj-${i}` }, data: { seq: "0" } }),
    });
    await r.body?.cancel();
    if (r.status !== 201) throw new Error(`create answered ${r.status}`);
  }
  console.log(
    `latency: commit→receipt bounds per event, matched by resourceVersion: "from ack" = ` +
      `receipt − write acknowledged (lower bound), "from send" = receipt − write sent ` +
      `(upper bound)`,
  );
  console.log(
    PROTOCOL === "h2"
      ? "protocol: HTTP/2, one connection per client process, one stream per watch (as client-go)"
      : "protocol: HTTP/1.1, one TLS connection per watch",
  );
  const base = await phase(server, f, 1, 1, BASELINE, tmp);
  console.log(
    `single watcher (1 client process), ${RATE} changes/s for ${BASELINE} s ` +
      `(${base.writes} writes): from ack p50 ${ms(base.fromAck.p50)}, p99 ${
        ms(base.fromAck.p99)
      }; from send p50 ${ms(base.fromSend.p50)}, p99 ${
        ms(base.fromSend.p99)
      }; missing ${base.missing}, reordered ${base.reordered}, failed ${base.failed}${
        base.firstError ? ` (${base.firstError})` : ""
      }; load average ${base.load.toFixed(1)}`,
  );
  const many = await phase(server, f, WATCHERS, CLIENTS, DURATION, tmp);
  console.log(
    `${WATCHERS} watchers in ${CLIENTS} client processes, ${RATE} changes/s for ${DURATION} s ` +
      `(${many.writes} writes):`,
  );
  console.log(
    `  delivery latency from ack p50 ${ms(many.fromAck.p50)}, p99 ${ms(many.fromAck.p99)}; ` +
      `from send p50 ${ms(many.fromSend.p50)}, p99 ${ms(many.fromSend.p99)}`,
  );
  console.log(
    `  fan-out spread per write (last − first receipt among all watchers): p50 ${
      ms(many.spread.p50)
    }, p99 ${ms(many.spread.p99)}`,
  );
  const ratio = (a: number, b: number) => b > 0 ? `${(a / b).toFixed(2)}x` : "n/a (single ≤ 0)";
  console.log(
    `  p50 ratio to the single watcher: from ack ${
      ratio(many.fromAck.p50, base.fromAck.p50)
    }, from send ${ratio(many.fromSend.p50, base.fromSend.p50)}`,
  );
  console.log(
    `  events delivered: ${
      many.eventsPerSecond.toFixed(0)
    }/s (${many.received} of ${many.expected}; ` +
      `needed ${(WATCHERS * RATE).toFixed(0)}/s)`,
  );
  console.log(
    `  server CPU ${many.serverCpuPercent.toFixed(0)}% of one core, RSS ${
      (many.rss / 1024 / 1024).toFixed(0)
    } MiB (peak ${(many.peakRss / 1024 / 1024).toFixed(0)} MiB); client processes CPU ${
      many.clientCpuPercent.toFixed(0)
    }% of one core`,
  );
  console.log(
    `  CPU per delivered event: server ${
      (many.serverCpuSeconds / many.received * 1e6).toFixed(2)
    } µs (gross: handling the writes included; single-watcher run ${
      (base.serverCpuSeconds / base.writes * 1e3).toFixed(2)
    } ms per write), clients ${(many.clientCpuSeconds / many.received * 1e6).toFixed(2)} µs; ` +
      `machine load average ${many.load.toFixed(1)} on ${navigator.hardwareConcurrency} cores`,
  );
  console.log(
    `  watchers that missed an event: ${many.missing}; reordered: ${many.reordered}; ` +
      `ended by the server: ${many.ended} (at most ${many.endedInOneSecond} within one ` +
      `second); failed: ${many.failed}${
        many.firstError ? ` (${many.firstError})` : ""
      }; unmatched events: ${many.unknown}`,
  );
  console.log(
    `  watchers not ended (${many.survivors.count}): delivery latency from ack p50 ${
      ms(many.survivors.p50)
    }, p99 ${ms(many.survivors.p99)}`,
  );
  console.log(
    `  server memory per idle watcher: ${(many.perIdleWatcher / 1024).toFixed(1)} KiB ` +
      `(${PROTOCOL === "h2" ? `${CLIENTS} connections` : `${WATCHERS} connections`})`,
  );
  console.log(
    `  client clock offsets up to ${ms(many.maxClockOffset)} (ping round trip up to ${
      ms(many.maxRtt)
    }), removed`,
  );
} finally {
  http.close();
  await server.stop();
  if (hog) {
    hog.kill("SIGKILL");
    await hog.status;
  }
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
}
