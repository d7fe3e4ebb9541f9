/**
 * Watch benchmark. Starts the API server as a child process (embedded libSQL), then:
 *
 * 1. the watch cache's memory per 10,000 1 KiB objects (in this process, heap delta);
 * 2. a baseline: one watcher while a writer makes `--rate` changes/s for `--baseline` s;
 * 3. `--watchers` concurrent watchers on one namespace while the writer makes `--rate`
 *    changes/s for `--duration` s.
 *
 * Prints delivery latency (write sent → event received; the commit lies in between) p50/p99,
 * events/s delivered, the server's CPU and RSS, the p50 ratio against the baseline, whether
 * any watcher missed or reordered an event, and the server's memory per idle watcher.
 *
 * Usage: ./scripts/deno run -A --v8-flags=--expose-gc scripts/bench/watch.ts [--watchers=1000]
 *        [--rate=200] [--duration=30] [--baseline=10]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { WatchCache } from "../../apiserver/watch/watch_cache.ts";

const { values } = parseArgs({
  options: {
    watchers: { type: "string", default: "1000" },
    rate: { type: "string", default: "200" },
    duration: { type: "string", default: "30" },
    baseline: { type: "string", default: "10" },
  },
});
const WATCHERS = Number(values.watchers);
const RATE = Number(values.rate);
const DURATION = Number(values.duration);
const BASELINE = Number(values.baseline);
const NS = "bench";
const repoRoot = new URL("../../", import.meta.url).pathname;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

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

// ---- server ----
async function startServer() {
  const dir = await Deno.makeTempDir({ prefix: "watch-bench-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${repoRoot}cmd/apiserver.ts`,
      `--data-dir=${dir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
    ],
    cwd: repoRoot,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/apiserver ready at/.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`server exited: ${text}`);
    text += value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  const cfg = await loadKubeconfig(`${dir}/admin.kubeconfig`);
  const client = Deno.createHttpClient({
    caCerts: [cfg.caPem!],
    ...(cfg.clientCertPem ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem } : {}),
  });
  const f = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cfg.token) headers.set("authorization", `Bearer ${cfg.token}`);
    return fetch(cfg.server + path, { ...init, headers, client });
  };
  const pid = child.pid;
  return {
    fetch: f,
    pid,
    async stop() {
      client.close();
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, clock ticks
}

function rssBytes(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
}

// ---- watchers and writer ----
interface Watcher {
  latencies: number[];
  names: string[];
  lastRv: number;
  reordered: boolean;
  done: Promise<void>;
  abort: AbortController;
}

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** Send times of writes, by the object's name and value. */
const sent = new Map<string, number>();

async function openWatcher(f: Fetch, rv: string): Promise<Watcher> {
  const abort = new AbortController();
  const res = await f(`/api/v1/namespaces/${NS}/configmaps?watch=1&resourceVersion=${rv}`, {
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`watch: ${res.status}`);
  const w: Watcher = {
    latencies: [],
    names: [],
    lastRv: Number(rv),
    reordered: false,
    abort,
    done: Promise.resolve(),
  };
  w.done = (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of res.body!) {
        const now = performance.now();
        buf += decoder.decode(chunk, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          if (ev.type === "BOOKMARK") continue;
          const rvNow = Number(ev.object.metadata.resourceVersion);
          if (rvNow <= w.lastRv) w.reordered = true;
          w.lastRv = rvNow;
          const id = `${ev.object.metadata.name}/${ev.object.data?.seq}`;
          w.names.push(id);
          const t = sent.get(id);
          if (t !== undefined) w.latencies.push(now - t);
        }
      }
    } catch {
      // aborted
    }
  })();
  return w;
}

async function runWriter(f: Fetch, seconds: number, objects: number): Promise<string[]> {
  const written: string[] = [];
  const total = Math.round(seconds * RATE);
  const start = performance.now();
  const inflight = new Set<Promise<void>>();
  let seq = 0;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const name = `obj-${i % objects}`;
    const s = ++seq;
    const id = `${name}/${s}`;
    const p = (async () => {
      sent.set(id, performance.now());
      const res = await f(`/api/v1/namespaces/${NS}/configmaps/${name}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name }, data: { seq: String(s) } }),
      });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`write ${res.status}`);
      written.push(id);
    })();
    inflight.add(p);
    p.finally(() => inflight.delete(p));
    if (inflight.size > 64) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  return written;
}

async function currentRv(f: Fetch): Promise<string> {
  const res = await f(`/api/v1/namespaces/${NS}/configmaps?limit=1`);
  return (await res.json()).metadata.resourceVersion;
}

async function phase(f: Fetch, pid: number, watchers: number, seconds: number) {
  const rv = await currentRv(f);
  const rssIdle0 = rssBytes(pid);
  const ws: Watcher[] = [];
  for (let i = 0; i < watchers; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, watchers - i) }, () => openWatcher(f, rv)),
    );
    ws.push(...batch);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const rssIdle1 = rssBytes(pid);
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const written = await runWriter(f, seconds, 100);
  // Let the last events arrive.
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline && ws.some((w) => w.names.length < written.length)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  const rss = rssBytes(pid);
  const latencies = ws.flatMap((w) => w.latencies);
  const received = ws.reduce((n, w) => n + w.names.length, 0);
  const writtenSet = new Set(written);
  const missing =
    ws.filter((w) => w.names.length !== written.length || w.names.some((n) => !writtenSet.has(n)))
      .length;
  const reordered = ws.filter((w) => w.reordered).length;
  for (const w of ws) w.abort.abort();
  await Promise.all(ws.map((w) => w.done));
  return {
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    eventsPerSecond: received / elapsed,
    cpuPercent: (cpu / elapsed) * 100,
    rss,
    perIdleWatcher: (rssIdle1 - rssIdle0) / watchers,
    missing,
    reordered,
    writes: written.length,
  };
}

const mem = cacheMemory();
console.log(
  `cache memory per 10,000 1 KiB objects: ${(mem / 1024 / 1024).toFixed(1)} MiB ` +
    `(${(mem / 10_000).toFixed(0)} bytes per object, heap delta)`,
);

const server = await startServer();
try {
  const f = server.fetch;
  const ns = await f("/api/v1/namespaces", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name: NS } }),
  });
  await ns.body?.cancel();
  for (let i = 0; i < 100; i++) {
    const r = await f(`/api/v1/namespaces/${NS}/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: `obj-${i}` }, data: { seq: "0" } }),
    });
    await r.body?.cancel();
  }
  const base = await phase(f, server.pid, 1, BASELINE);
  console.log(
    `single watcher: ${base.writes} writes, p50 ${base.p50.toFixed(2)} ms, p99 ${
      base.p99.toFixed(2)
    } ms, missing ${base.missing}, reordered ${base.reordered}`,
  );
  const many = await phase(f, server.pid, WATCHERS, DURATION);
  console.log(
    `${WATCHERS} watchers, ${RATE} changes/s for ${DURATION} s (${many.writes} writes):`,
  );
  console.log(`  delivery latency p50 ${many.p50.toFixed(2)} ms, p99 ${many.p99.toFixed(2)} ms`);
  console.log(`  p50 ratio to the single watcher: ${(many.p50 / base.p50).toFixed(2)}x`);
  console.log(`  events delivered: ${many.eventsPerSecond.toFixed(0)}/s`);
  console.log(
    `  server CPU ${many.cpuPercent.toFixed(0)}% of one core, RSS ${
      (many.rss / 1024 / 1024).toFixed(0)
    } MiB`,
  );
  console.log(`  watchers that missed an event: ${many.missing}; reordered: ${many.reordered}`);
  console.log(`  server memory per idle watcher: ${(many.perIdleWatcher / 1024).toFixed(1)} KiB`);
} finally {
  await server.stop();
}
