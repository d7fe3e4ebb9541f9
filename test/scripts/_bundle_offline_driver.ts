/**
 * Runs inside a network namespace with no network (started by `bundle_test.ts`): unpacks the
 * bundle, starts its API server, waits for `/readyz` through the kubeconfig the server wrote,
 * starts its node agent and waits for the Node it registers. Prints one JSON line:
 * `{ "readyMs": <unpack to /readyz>, "node": "<name>" }`; exits non-zero with the logs on failure.
 *
 * Usage: `deno run -A --cached-only _bundle_offline_driver.ts <tarball> <work dir>`
 *
 * @module
 */
import { RestClient } from "../../shared/client/rest_client.ts";

const [tarball, work] = Deno.args;
const NODE = "bundle-node";
const DEADLINE_MS = 240_000;

function spawn(cmd: string, args: string[], log: string): Deno.ChildProcess {
  const file = Deno.openSync(log, { write: true, create: true, truncate: true });
  const child = new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).spawn();
  child.stderr.pipeTo(file.writable).catch(() => {});
  return child;
}

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + DEADLINE_MS;
  while (Date.now() < end) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const tar = await new Deno.Command("tar", { args: ["-xzf", tarball, "-C", work] }).output();
  if (!tar.success) throw new Error("tar failed");
  const base = [...Deno.readDirSync(work)].find((e) => e.isDirectory)!.name;
  const root = `${work}/${base}`;
  const data = `${work}/data`;
  const server = spawn(`${root}/bin/apiserver`, [
    `--data-dir=${data}`,
    "--bind-address=127.0.0.1",
    "--secure-port=6443",
  ], `${work}/apiserver.log`);
  let agent: Deno.ChildProcess | undefined;
  try {
    const client = await until("the kubeconfig", async () => {
      await Deno.stat(`${data}/admin.kubeconfig`);
      return await RestClient.fromKubeconfig(`${data}/admin.kubeconfig`);
    });
    await until("/readyz", async () => {
      const res = await client.request("GET", "/readyz");
      return res.status === 200 ? true : undefined;
    });
    const readyMs = Math.round(performance.now() - started);
    agent = spawn(`${root}/bin/nodeagent`, [
      `--kubeconfig=${data}/admin.kubeconfig`,
      `--root-dir=${work}/agent`,
      `--hostname-override=${NODE}`,
      "--port=10250",
    ], `${work}/nodeagent.log`);
    await until("the Node", async () => {
      const res = await client.request("GET", `/api/v1/nodes/${NODE}`);
      return res.status === 200 ? true : undefined;
    });
    client.close();
    console.log(JSON.stringify({ readyMs, node: NODE }));
  } finally {
    for (const p of [agent, server]) {
      if (!p) continue;
      p.kill("SIGTERM");
      await p.status;
    }
  }
}

try {
  await main();
} catch (e) {
  console.error(`bundle driver: ${(e as Error).message}`);
  for (const log of ["apiserver.log", "nodeagent.log"]) {
    const text = await Deno.readTextFile(`${work}/${log}`).catch(() => "");
    console.error(`--- ${log}\n${text.slice(-4000)}`);
  }
  Deno.exit(1);
}
