/**
 * The etcd anchor: a single-member etcd (Debian's `etcd-server`) on loopback with a throwaway
 * data directory, and its put rate for 1 KiB values at a given concurrency through the v3
 * HTTP/JSON gateway (`POST /v3/kv/put`, base64 key and value, keep-alive). etcd is what
 * kube-apiserver writes to, so the create benchmark reports its own rate against this one.
 * Run it on its own to print the figure:
 *
 *   ./scripts/deno run -A scripts/bench/etcd_anchor.ts [--puts=2000] [--concurrency=16]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { freePort } from "./lib/free_port.ts";
import { percentile } from "./lib/stats.ts";
import { runPool } from "./lib/run_pool.ts";
import { stoppable } from "./lib/stop_child.ts";

/** A running etcd. */
export interface EtcdProcess {
  /** Client URL, `http://127.0.0.1:<port>`. */
  url: string;
  pid: number;
  /** Stops etcd (SIGTERM, then SIGKILL after 10 s) and removes its data directory. */
  stop(): Promise<void>;
}

/** Options of {@link etcdPutRate}. */
export interface EtcdPutOptions {
  /** Client URL of a running etcd. */
  url: string;
  /** Puts to issue, each to a distinct key. */
  puts: number;
  /** Concurrent clients. */
  concurrency: number;
  /** Bytes per value (1024 for the standard anchor). */
  valueBytes: number;
  /** No put starts after this many ms. */
  capMs: number;
  /** Distinguishes the keys of several runs against one etcd. */
  tag: string;
}

/** Result of {@link etcdPutRate}. */
export interface EtcdPutResult {
  /** Successful puts. */
  puts: number;
  /** Successful puts per wall-clock second. */
  putsPerSecond: number;
  /** Median put latency, ms. */
  p50Ms: number;
  /** Failed puts. */
  failed: number;
  /** First failure, if any. */
  firstError?: string;
}

/** Whether an `etcd` executable is on PATH. */
export async function etcdAvailable(): Promise<boolean> {
  try {
    const out = await new Deno.Command("etcd", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Starts a single-member etcd listening on free loopback ports with a fresh data directory
 * under `parentDir`, and waits (up to `readyTimeoutMs`, default 60 s) until it answers.
 */
export async function startEtcd(
  parentDir: string,
  readyTimeoutMs = 60_000,
): Promise<EtcdProcess> {
  const dataDir = await Deno.makeTempDir({ dir: parentDir, prefix: "etcd-" });
  const clientUrl = `http://127.0.0.1:${freePort()}`;
  const peerUrl = `http://127.0.0.1:${freePort()}`;
  const child = new Deno.Command("etcd", {
    args: [
      "--name=bench",
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=bench=${peerUrl}`,
      "--logger=zap",
      "--log-level=error",
      "--quota-backend-bytes=4294967296",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const proc = stoppable(child, 10_000);
  const status = proc.status;
  const stop = async () => {
    await proc.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  const deadline = performance.now() + readyTimeoutMs;
  for (;;) {
    if (proc.exited) {
      await stop();
      throw new Error(`etcd exited with code ${(await status).code} during start`);
    }
    try {
      const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(2000) });
      const body = await res.text();
      if (res.ok && body.includes("true")) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`etcd not healthy within ${readyTimeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: clientUrl, pid: child.pid, stop };
}

/** Issues `puts` puts of distinct keys with 1 KiB-style values and reports their rate. */
export async function etcdPutRate(opts: EtcdPutOptions): Promise<EtcdPutResult> {
  const value = base64(
    JSON.stringify({ kind: "ConfigMap", pad: "x".repeat(opts.valueBytes) }).slice(
      0,
      opts.valueBytes,
    ),
  );
  const client = Deno.createHttpClient({});
  try {
    const pool = await runPool(
      { count: opts.puts, concurrency: opts.concurrency, capMs: opts.capMs },
      async (i) => {
        const key = base64(`/registry/bench/${opts.tag}/${String(i).padStart(7, "0")}`);
        const res = await fetch(`${opts.url}/v3/kv/put`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ key, value }),
          client,
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`etcd put answered ${res.status}: ${text.slice(0, 200)}`);
      },
    );
    const result: EtcdPutResult = {
      puts: pool.done,
      putsPerSecond: pool.done / pool.seconds,
      p50Ms: percentile(pool.latenciesMs, 50),
      failed: pool.failed,
    };
    if (pool.firstError !== undefined) result.firstError = String(pool.firstError);
    return result;
  } finally {
    client.close();
  }
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      puts: { type: "string", default: "2000" },
      concurrency: { type: "string", default: "16" },
      "value-bytes": { type: "string", default: "1024" },
      "cap-seconds": { type: "string", default: "120" },
    },
  });
  if (!await etcdAvailable()) {
    console.log("etcd is not installed (apt-get install etcd-server): nothing to measure");
    Deno.exit(0);
  }
  const nums = {
    puts: Number(values.puts),
    concurrency: Number(values.concurrency),
    valueBytes: Number(values["value-bytes"]),
    capSeconds: Number(values["cap-seconds"]),
  };
  for (const [name, v] of Object.entries(nums)) {
    if (!Number.isSafeInteger(v) || v <= 0) {
      console.error(`error: --${name} must be a positive integer`);
      Deno.exit(2);
    }
  }
  const dir = await Deno.makeTempDir({ prefix: "etcd_anchor_" });
  const etcd = await startEtcd(dir);
  try {
    const r = await etcdPutRate({
      url: etcd.url,
      puts: nums.puts,
      concurrency: nums.concurrency,
      valueBytes: nums.valueBytes,
      capMs: nums.capSeconds * 1000,
      tag: "cli",
    });
    console.log(
      `etcd put c=${nums.concurrency}: ${r.putsPerSecond.toFixed(0)} puts/s, ` +
        `p50 ${r.p50Ms.toFixed(2)} ms (${r.puts} ok, ${r.failed} failed)`,
    );
  } finally {
    await etcd.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
