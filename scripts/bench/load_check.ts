/**
 * Load check (issue 23): can an admin still reach the server while it holds many idle
 * unauthenticated connections, watches and writers? Starts the API server as a subprocess
 * (embedded libSQL), then measures the admin's `GET /readyz` (one request every 100 ms on its
 * own connection) first alone, then while this process holds:
 *
 * - `--idle` idle unauthenticated connections (default 2,000): half plain TCP connections that
 *   never start TLS, half TLS connections that finish the handshake and never send a request.
 *   A connection the server closes is opened again at once, so the count holds; how many were
 *   closed is reported;
 * - `--watches` watches (default 200) on one namespace's ConfigMaps, spread over `--clients`
 *   watch client subprocesses (`lib/watch_client.ts`, HTTP/2 as client-go);
 * - `--writers` writers (default 50), each replacing its own ConfigMap `--writer-rate` times a
 *   second (default 2) over HTTP/1.1,
 *
 * for `--duration` seconds (default 30). Reports `/readyz` p50, p99 and max with and without
 * the load (target: p99 under 1 s under load), the writes' latency, and whether every watch
 * received every write. Figures depend on the machine's load, which is printed too.
 *
 * Usage: ./scripts/deno run -A scripts/bench/load_check.ts [--idle=2000] [--watches=200]
 *        [--writers=50] [--writer-rate=2] [--duration=30] [--clients=2]
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  adminHeaders,
  adminHttpClient,
  type ApiServerProcess,
  startApiServerProcess,
} from "./lib/apiserver_process.ts";
import { readProcStats } from "./lib/proc_stats.ts";
import { percentile } from "./lib/stats.ts";
import { wallNow } from "./lib/wall_now.ts";
import type { AckedWrite, FinishReply } from "./lib/watch_client.ts";
import { ClientProcess } from "./lib/watch_client_process.ts";

const { values } = parseArgs({
  options: {
    idle: { type: "string", default: "2000" },
    watches: { type: "string", default: "200" },
    writers: { type: "string", default: "50" },
    "writer-rate": { type: "string", default: "2" },
    duration: { type: "string", default: "30" },
    clients: { type: "string", default: "2" },
  },
});
const IDLE = Number(values.idle);
const WATCHES = Number(values.watches);
const WRITERS = Number(values.writers);
const WRITER_RATE = Number(values["writer-rate"]);
const DURATION = Number(values.duration);
const CLIENTS = Number(values.clients);
for (
  const [name, v] of Object.entries({ IDLE, WATCHES, WRITERS, WRITER_RATE, DURATION, CLIENTS })
) {
  if (!(Number.isFinite(v) && v >= 0) || (name === "CLIENTS" && v < 1)) {
    console.error(`--${name.toLowerCase().replace("_", "-")} must be a non-negative number`);
    Deno.exit(2);
  }
}
const NS = "load";
const PATH = `/api/v1/namespaces/${NS}/configmaps`;

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** `/readyz` every 100 ms until `stop` resolves: latencies (ms) and non-200 answers. */
async function probeReadyz(
  server: ApiServerProcess,
  stop: Promise<void>,
): Promise<{ ms: number[]; failures: number; firstFailure?: string }> {
  const client = adminHttpClient(server);
  const ms: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let stopped = false;
  stop.then(() => stopped = true);
  try {
    while (!stopped) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${server.url}/readyz`, {
          headers: adminHeaders(server),
          client,
        });
        const text = await res.text();
        ms.push(performance.now() - t0);
        if (res.status !== 200) {
          failures++;
          firstFailure ??= `${res.status} ${text.slice(0, 200)}`;
        }
      } catch (err) {
        ms.push(performance.now() - t0);
        failures++;
        firstFailure ??= String(err);
      }
      const wait = 100 - (performance.now() - t0);
      if (wait > 0) await Promise.race([new Promise((r) => setTimeout(r, wait)), stop]);
    }
  } finally {
    client.close();
  }
  return { ms, failures, firstFailure };
}

/** Idle unauthenticated connections, reopened when the server closes them. */
class IdleConnections {
  closedByServer = { tcp: 0, tls: 0 };
  openFailures = 0;
  firstFailure: string | undefined;
  #open = new Set<Deno.Conn>();
  #stopped = false;
  #loops: Promise<void>[] = [];

  constructor(readonly server: ApiServerProcess) {}

  get open(): number {
    return this.#open.size;
  }

  /** Opens `count` connections (half TCP only, half TLS), 100 at a time. */
  async start(count: number): Promise<void> {
    const url = new URL(this.server.url);
    const port = Number(url.port);
    for (let i = 0; i < count; i += 100) {
      const batch: Promise<void>[] = [];
      for (let j = i; j < Math.min(count, i + 100); j++) {
        const tls = j % 2 === 1;
        const ready = Promise.withResolvers<void>();
        this.#loops.push(this.#hold(port, tls, ready.resolve));
        batch.push(ready.promise);
      }
      await Promise.all(batch);
    }
  }

  async #hold(port: number, tls: boolean, opened: () => void): Promise<void> {
    let first = true;
    while (!this.#stopped) {
      let conn: Deno.Conn | undefined;
      try {
        if (tls) {
          const c = await Deno.connectTls({
            hostname: "127.0.0.1",
            port,
            caCerts: [this.server.caPem],
          });
          await c.handshake();
          conn = c;
        } else {
          conn = await Deno.connect({ hostname: "127.0.0.1", port });
        }
      } catch (err) {
        this.openFailures++;
        this.firstFailure ??= String(err);
      }
      if (first) {
        first = false;
        opened();
      }
      if (!conn) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      this.#open.add(conn);
      // Nothing is sent; a read ends when the server closes the connection.
      const buf = new Uint8Array(1024);
      try {
        while (await conn.read(buf) !== null) { /* the server sent something: keep reading */ }
      } catch {
        // reset
      }
      this.#open.delete(conn);
      if (this.#stopped) return;
      if (tls) this.closedByServer.tls++;
      else this.closedByServer.tcp++;
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const c of this.#open) {
      try {
        c.close();
      } catch {
        // already closed
      }
    }
    await Promise.all(this.#loops);
  }
}

/** `WRITERS` loops, each replacing its own ConfigMap `WRITER_RATE` times a second. */
async function runWriters(f: Fetch, seconds: number): Promise<{
  acked: AckedWrite[];
  ms: number[];
  errors: number;
  firstError?: string;
}> {
  const acked: AckedWrite[] = [];
  const ms: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const end = performance.now() + seconds * 1000;
  const period = 1000 / WRITER_RATE;
  await Promise.all(Array.from({ length: WRITERS }, async (_, w) => {
    // Spread the writers' first writes over one period.
    await new Promise((r) => setTimeout(r, (w * period) / WRITERS));
    for (let seq = 1; performance.now() < end; seq++) {
      const t0 = performance.now();
      const name = `writer-${w}`;
      try {
        const sentAt = wallNow();
        const res = await f(`${PATH}/${name}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ metadata: { name }, data: { seq: String(seq) } }),
        });
        const text = await res.text();
        const ackedAt = wallNow();
        ms.push(performance.now() - t0);
        if (res.status !== 200) {
          throw new Error(`PUT answered ${res.status}: ${text.slice(0, 200)}`);
        }
        acked.push([Number(JSON.parse(text).metadata.resourceVersion), sentAt, ackedAt]);
      } catch (err) {
        errors++;
        firstError ??= String(err);
      }
      const wait = period - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }));
  acked.sort((a, b) => a[0] - b[0]);
  return { acked, ms, errors, firstError };
}

function summary(ms: number[]): string {
  const f = (x: number) => `${x.toFixed(1)} ms`;
  return `p50 ${f(percentile(ms, 50))}, p99 ${f(percentile(ms, 99))}, max ${
    f(Math.max(...ms))
  } (${ms.length} requests)`;
}

function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
}

// ---- main ----
const tmp = await Deno.makeTempDir({ prefix: "load-check-" });
const server = await startApiServerProcess({ dataDir: `${tmp}/data` });
const http = adminHttpClient(server, { http2: false });
const f: Fetch = (path, init = {}) =>
  fetch(server.url + path, { ...init, headers: adminHeaders(server, init.headers), client: http });
const idle = new IdleConnections(server);
const clients: ClientProcess[] = [];
try {
  const ns = await f("/api/v1/namespaces", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name: NS } }),
  });
  await ns.body?.cancel();
  for (let w = 0; w < WRITERS; w++) {
    const r = await f(PATH, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: `writer-${w}` }, data: { seq: "0" } }),
    });
    await r.body?.cancel();
    if (r.status !== 201) throw new Error(`create answered ${r.status}`);
  }
  console.log(`machine: ${navigator.hardwareConcurrency} cores, load average ${loadAverage()}`);

  // Alone.
  const quiet = await probeReadyz(server, new Promise((r) => setTimeout(r, 5000)));
  console.log(`GET /readyz alone: ${summary(quiet.ms)}; failures ${quiet.failures}`);

  // Under load.
  const loaded = Promise.withResolvers<void>();
  const probing = probeReadyz(server, loaded.promise);
  const t0 = performance.now();
  await idle.start(IDLE);
  console.log(
    `${idle.open} idle unauthenticated connections open after ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s (${idle.openFailures} failed to open${idle.firstFailure ? `: ${idle.firstFailure}` : ""})`,
  );
  const list = await f(`${PATH}?limit=1`);
  const rv = (await list.json()).metadata.resourceVersion as string;
  for (let i = 0; i < CLIENTS; i++) {
    clients.push(
      new ClientProcess({
        url: server.url,
        caPem: server.caPem,
        token: server.token,
        clientCertPem: server.clientCertPem,
        clientKeyPem: server.clientKeyPem,
        path: PATH,
        protocol: "h2",
      }),
    );
  }
  await Promise.all(clients.map((c, i) => {
    const count = Math.floor(WATCHES / CLIENTS) + (i < WATCHES % CLIENTS ? 1 : 0);
    return c.send({ op: "open", count, resourceVersion: rv });
  }));
  const before = await readProcStats(server.pid);
  const writes = await runWriters(f, DURATION);
  const after = await readProcStats(server.pid);
  const replies = await Promise.all(clients.map((c, i) =>
    c.send<FinishReply>({
      op: "finish",
      writes: writes.acked,
      timeoutMs: 30_000,
      outFile: `${tmp}/latencies-${i}.bin`,
    })
  ));
  loaded.resolve();
  const probe = await probing;
  const idleOpen = idle.open;
  await idle.stop();

  console.log(
    `under load (${idleOpen} idle connections still open at the end, ${WATCHES} watches, ` +
      `${WRITERS} writers at ${WRITER_RATE}/s each, ${DURATION} s):`,
  );
  console.log(
    `  GET /readyz: ${summary(probe.ms)}; failures ${probe.failures}${
      probe.firstFailure ? ` (${probe.firstFailure})` : ""
    }; target p99 < 1 s: ${percentile(probe.ms, 99) < 1000 ? "met" : "NOT met"}`,
  );
  console.log(
    `  writes: ${writes.acked.length} acknowledged, ${writes.errors} failed${
      writes.firstError ? ` (${writes.firstError})` : ""
    }; latency ${summary(writes.ms)}`,
  );
  const sum = (k: "received" | "missing" | "ended" | "failed") =>
    replies.reduce((n, r) => n + r[k], 0);
  console.log(
    `  watches: ${sum("received")} events received of ${
      writes.acked.length * WATCHES
    }; watches that missed an event ${sum("missing")}, ended by the server ${
      sum("ended")
    }, failed ${sum("failed")}`,
  );
  console.log(
    `  idle connections closed by the server during the run: ${idle.closedByServer.tcp} TCP-only, ${idle.closedByServer.tls} TLS (each reopened at once); ${idle.openFailures} failed to open`,
  );
  if (before && after) {
    console.log(
      `  server CPU ${((after.cpuSeconds - before.cpuSeconds) / DURATION * 100).toFixed(0)}% ` +
        `of one core while writing, RSS ${(after.rssBytes / 1024 / 1024).toFixed(0)} MiB; ` +
        `machine load average ${loadAverage()}`,
    );
  }
} finally {
  await idle.stop();
  await Promise.all(clients.map((c) => c.exit()));
  http.close();
  await server.stop();
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
}
