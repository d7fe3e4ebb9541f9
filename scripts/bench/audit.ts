/**
 * The cost of audit logging: ConfigMap creates per second by concurrent HTTPS clients against
 * three real API servers started side by side in the same run: audit off (the anchor), every
 * request audited at Metadata, and at RequestResponse, both to a log file. Rounds interleave
 * the three (A B C, A B C…) so a pause of the machine hits them alike; the report gives each
 * configuration's median rate and its median per-round ratio to audit off, and the audit log's
 * size per create. Figures are printed, never asserted.
 *
 *   ./scripts/deno run -A scripts/bench/audit.ts [--creates=1000] [--concurrency=8]
 *     [--rounds=5] [--warmup=500]
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
import { runPool } from "./lib/run_pool.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    creates: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "5" },
    warmup: { type: "string", default: "500" },
  },
});
const creates = Number(values.creates);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);

const policy = (level: string) =>
  `apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: ${level}\n`;

interface Target {
  name: string;
  server: ApiServerProcess;
  client: Deno.HttpClient;
  logPath?: string;
  rates: number[];
}

async function startTarget(dir: string, name: string, level?: string): Promise<Target> {
  const dataDir = `${dir}/${name}`;
  await Deno.mkdir(dataDir, { recursive: true });
  const flags: string[] = [];
  let logPath: string | undefined;
  if (level) {
    await Deno.writeTextFile(`${dataDir}/policy.yaml`, policy(level));
    logPath = `${dataDir}/audit.log`;
    flags.push(`--audit-policy-file=${dataDir}/policy.yaml`, `--audit-log-path=${logPath}`);
  }
  const server = await startApiServerProcess({ dataDir, flags });
  return { name, server, client: adminHttpClient(server, { http2: false }), logPath, rates: [] };
}

/** `count` creates of 1 KiB ConfigMaps named `<prefix>-<i>`; creates per second. */
async function createRound(t: Target, prefix: string, count: number): Promise<number> {
  const value = "x".repeat(1024);
  const headers = adminHeaders(t.server, { "content-type": "application/json" });
  const result = await runPool({ count, concurrency, capMs: 120_000 }, async (i) => {
    const res = await fetch(`${t.server.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers,
      client: t.client,
      body: JSON.stringify({ metadata: { name: `${prefix}-${i}` }, data: { v: value } }),
    });
    await res.body?.cancel();
    if (res.status !== 201) throw new Error(`create: ${res.status}`);
  });
  if (result.failed > 0) throw new Error(`${t.name}: ${String(result.firstError)}`);
  return result.done / result.seconds;
}

const dir = await Deno.makeTempDir({ prefix: "bench-audit-" });
const targets: Target[] = [];
try {
  targets.push(await startTarget(dir, "audit-off"));
  targets.push(await startTarget(dir, "metadata", "Metadata"));
  targets.push(await startTarget(dir, "request-response", "RequestResponse"));
  for (const t of targets) await createRound(t, "warmup", warmup);
  for (let r = 0; r < rounds; r++) {
    for (const t of targets) t.rates.push(await createRound(t, `r${r}`, creates));
  }
  const anchor = targets[0];
  console.log(`creates/s (${rounds} rounds of ${creates}, concurrency ${concurrency}):`);
  for (const t of targets) {
    const ratios = t.rates.map((rate, i) => rate / anchor.rates[i]);
    const size = t.logPath ? (await Deno.stat(t.logPath)).size : 0;
    const perCreate = size / (warmup + rounds * creates);
    console.log(
      `  ${t.name.padEnd(17)} median ${median(t.rates).toFixed(0).padStart(6)}/s  ` +
        `×audit-off ${median(ratios).toFixed(2)}  rounds ${
          t.rates.map((x) => x.toFixed(0)).join(" ")
        }` + (t.logPath ? `  log ${perCreate.toFixed(0)} B/create` : ""),
    );
  }
} finally {
  for (const t of targets) {
    t.client.close();
    await t.server.stop();
  }
  await Deno.remove(dir, { recursive: true });
}
