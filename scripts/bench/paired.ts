/**
 * The paired create benchmark: two API servers, A and B, take the same create load side by
 * side, so a change of a few percent in server CPU per create shows above this machine's
 * drift. Run one after the other, the create benchmark's rate swings by 2× between runs of the
 * same code on the shared 2-vCPU VM; loaded at once, both servers see the same machine.
 *
 * A runs another revision (`--base=<git revision>`, checked out as a temporary git worktree
 * that shares this tree's `node_modules`) or this tree without `--env-b`; B runs this tree,
 * with `--env-b=NAME=VALUE` set when given (a switch the code under test reads). Each round
 * loads both for `--seconds` with 1 KiB ConfigMap creates from `--concurrency` HTTPS clients
 * each and prints both rates, both servers' CPU per create (from `/proc`) and the ratios B/A;
 * the summary is the median of each ratio. Both servers share two CPUs with all the clients,
 * so the CPU ratio is the figure to read; the rate ratio also moves with scheduling.
 *
 *   ./scripts/deno run -A scripts/bench/paired.ts (--base=<rev> | --env-b=NAME=VALUE)
 *     [--seconds=6] [--concurrency=16] [--rounds=5] [--warmup=2000]
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
import { configMapBody } from "./create_list.ts";
import { readProcStats } from "./lib/proc_stats.ts";
import { runPool } from "./lib/run_pool.ts";
import { median } from "./lib/stats.ts";

/** Options of {@link runPaired}. */
export interface PairedOptions {
  /** Tree of server A (default: this tree). */
  treeA?: string;
  /** Environment of server B on top of this process's. */
  envB?: Record<string, string>;
  /** Seconds of load per round. */
  seconds: number;
  /** Concurrent clients per server. */
  concurrency: number;
  rounds: number;
  /** Untimed creates per server before the first round. */
  warmup: number;
  /** Called with each line of progress. */
  log?: (line: string) => void;
}

/** One server's figures in one round. */
export interface PairedSide {
  createsPerSecond: number;
  /** Server CPU (user + system, all threads) per create, ms. */
  cpuMsPerCreate: number;
  failed: number;
}

/** Result of {@link runPaired}. */
export interface PairedResult {
  rounds: Array<{ a: PairedSide; b: PairedSide }>;
  /** Median over rounds of B's creates/s ÷ A's. */
  rateRatio: number;
  /** Median over rounds of B's CPU per create ÷ A's. */
  cpuRatio: number;
}

/** The create benchmark's 1 KiB ConfigMaps. */
const BODY = configMapBody(1024);

/** A server under load: its clients and a create loop. */
class Side {
  #next = 0;
  private constructor(readonly server: ApiServerProcess, readonly clients: Deno.HttpClient[]) {}

  static async start(
    dataDir: string,
    concurrency: number,
    tree?: string,
    env?: Record<string, string>,
  ): Promise<Side> {
    const server = await startApiServerProcess({ dataDir, tree, env });
    const clients = Array.from(
      { length: concurrency },
      () => adminHttpClient(server, { http2: false }),
    );
    const side = new Side(server, clients);
    try {
      const res = await side.#post(
        "/api/v1/namespaces",
        JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "paired" } }),
        0,
      );
      if (res !== 201) throw new Error(`creating the namespace answered ${res}`);
    } catch (e) {
      await side.stop();
      throw e;
    }
    return side;
  }

  async #post(path: string, body: string, worker: number): Promise<number> {
    const res = await fetch(this.server.url + path, {
      method: "POST",
      headers: adminHeaders(this.server, { "content-type": "application/json" }),
      body,
      client: this.clients[worker],
    });
    await res.text();
    return res.status;
  }

  /** Creates ConfigMaps (up to `count`, for at most `capMs`) and measures them. */
  async load(count: number, capMs: number): Promise<PairedSide> {
    const before = await readProcStats(this.server.pid);
    const pool = await runPool(
      { count, concurrency: this.clients.length, capMs },
      async (_i, worker) => {
        const status = await this.#post(
          "/api/v1/namespaces/paired/configmaps",
          BODY(this.#next++),
          worker,
        );
        if (status !== 201) throw new Error(`create answered ${status}`);
      },
    );
    const after = await readProcStats(this.server.pid);
    const cpu = before && after ? after.cpuSeconds - before.cpuSeconds : NaN;
    return {
      createsPerSecond: pool.done / pool.seconds,
      cpuMsPerCreate: cpu * 1000 / Math.max(1, pool.done),
      failed: pool.failed,
    };
  }

  async stop(): Promise<void> {
    for (const c of this.clients) c.close();
    await this.server.stop();
  }
}

/** Runs both servers side by side for `rounds` rounds. */
export async function runPaired(opts: PairedOptions): Promise<PairedResult> {
  const log = opts.log ?? (() => {});
  const dir = await Deno.makeTempDir({ prefix: "paired_" });
  const sides: Side[] = [];
  try {
    sides.push(await Side.start(`${dir}/a`, opts.concurrency, opts.treeA));
    sides.push(await Side.start(`${dir}/b`, opts.concurrency, undefined, opts.envB));
    const [a, b] = sides;
    log(`warm-up: ${opts.warmup} creates per server`);
    await Promise.all([a.load(opts.warmup, 120_000), b.load(opts.warmup, 120_000)]);
    const rounds: PairedResult["rounds"] = [];
    for (let r = 0; r < opts.rounds; r++) {
      const capMs = opts.seconds * 1000;
      const [ra, rb] = await Promise.all([a.load(1e9, capMs), b.load(1e9, capMs)]);
      rounds.push({ a: ra, b: rb });
      log(
        `round ${r + 1}: A ${ra.createsPerSecond.toFixed(0)}/s ${ra.cpuMsPerCreate.toFixed(3)} ms` +
          ` | B ${rb.createsPerSecond.toFixed(0)}/s ${rb.cpuMsPerCreate.toFixed(3)} ms` +
          ` | B/A rate ${(rb.createsPerSecond / ra.createsPerSecond).toFixed(3)}` +
          ` CPU ${(rb.cpuMsPerCreate / ra.cpuMsPerCreate).toFixed(3)}`,
      );
    }
    return {
      rounds,
      rateRatio: median(rounds.map((r) => r.b.createsPerSecond / r.a.createsPerSecond)),
      cpuRatio: median(rounds.map((r) => r.b.cpuMsPerCreate / r.a.cpuMsPerCreate)),
    };
  } finally {
    for (const s of sides) await s.stop().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Parses `NAME=VALUE`; undefined when malformed. */
export function parseEnvAssignment(text: string): Record<string, string> | undefined {
  const eq = text.indexOf("=");
  if (eq <= 0) return undefined;
  const name = text.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return undefined;
  return { [name]: text.slice(eq + 1) };
}

async function git(args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      base: { type: "string" },
      "env-b": { type: "string" },
      seconds: { type: "string", default: "6" },
      concurrency: { type: "string", default: "16" },
      rounds: { type: "string", default: "5" },
      warmup: { type: "string", default: "2000" },
    },
  });
  const problems: string[] = [];
  const nums: Record<string, number> = {};
  for (const name of ["seconds", "concurrency", "rounds", "warmup"] as const) {
    const v = Number(values[name]);
    if (!Number.isSafeInteger(v) || v < (name === "warmup" ? 0 : 1)) {
      problems.push(
        `--${name} must be a ${name === "warmup" ? "non-negative" : "positive"} integer`,
      );
    }
    nums[name] = v;
  }
  const envB = values["env-b"] === undefined ? undefined : parseEnvAssignment(values["env-b"]);
  if (values["env-b"] !== undefined && !envB) problems.push("--env-b must be NAME=VALUE");
  if (values.base === undefined && !envB) problems.push("give --base=<git revision> or --env-b");
  if (problems.length > 0) {
    for (const p of problems) console.error(`error: ${p}`);
    Deno.exit(2);
  }
  const root = new URL("../../", import.meta.url).pathname;
  let worktree: string | undefined;
  try {
    if (values.base !== undefined) {
      const rev = await git(["rev-parse", "--verify", `${values.base}^{commit}`], root);
      worktree = await Deno.makeTempDir({ prefix: "paired_base_" });
      await git(["worktree", "add", "--detach", worktree, rev], root);
      await Deno.symlink(`${root}node_modules`, `${worktree}/node_modules`);
      console.log(`A: ${values.base} (${rev.slice(0, 12)}); B: this tree`);
    } else console.log(`A: this tree; B: this tree with ${values["env-b"]}`);
    const result = await runPaired({
      treeA: worktree,
      envB,
      seconds: nums.seconds,
      concurrency: nums.concurrency,
      rounds: nums.rounds,
      warmup: nums.warmup,
      log: (line) => console.log(line),
    });
    console.log(
      `median B/A over ${nums.rounds} rounds: server CPU per create ` +
        `${result.cpuRatio.toFixed(3)}, creates/s ${result.rateRatio.toFixed(3)}`,
    );
  } finally {
    if (worktree) {
      await git(["worktree", "remove", "--force", worktree], root).catch((e) =>
        console.error(`removing the worktree: ${e.message}`)
      );
    }
  }
}
