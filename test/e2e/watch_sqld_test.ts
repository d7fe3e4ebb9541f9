/**
 * Two API servers — this process and a child process — on one real libSQL server: each sees
 * the other's writes in its watches within about a second, in revision order, none lost.
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { startTestServer } from "../support/test_server.ts";
import { WatchStream } from "../apiserver/watch/watch_stream.ts";
import { isRootCaEvent } from "./_watch_helpers.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const repoRoot = new URL("../../", import.meta.url).pathname;

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** Starts `cmd/apiserver.ts` as a child process; resolves with a fetch for it. */
async function startChild(storageUrl: string, dir: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${repoRoot}cmd/apiserver.ts`,
      `--data-dir=${dir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--storage-url=${storageUrl}`,
    ],
    cwd: repoRoot,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = Date.now() + 120_000;
  while (!/apiserver ready at/.test(text)) {
    if (Date.now() > deadline) throw new Error(`child did not start: ${text}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`child exited: ${text}`);
    text += value;
  }
  // Keep draining stderr so the child never blocks on a full pipe.
  const drain = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  const cfg = await loadKubeconfig(`${dir}/admin.kubeconfig`);
  const client = Deno.createHttpClient({
    caCerts: [cfg.caPem!],
    ...(cfg.clientCertPem ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem } : {}),
  });
  const fetchChild: Fetch = (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (cfg.token) headers.set("authorization", `Bearer ${cfg.token}`);
    return fetch(cfg.server + path, { ...init, headers, client });
  };
  return {
    fetch: fetchChild,
    async stop() {
      client.close();
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await drain;
    },
  };
}

async function create(f: Fetch, name: string): Promise<number> {
  const res = await f(CM, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name } }),
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return Number(body.metadata.resourceVersion);
}

Deno.test("two API servers on one sqld see each other's writes in their watches", async () => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  const dirB = await Deno.makeTempDir({ prefix: "apiserver-b-" });
  const a = await startTestServer([`--storage-url=${sqld.url}`]);
  let b: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    b = await startChild(sqld.url, dirB);
    const fb = b.fetch;
    const wa = await a.fetch(`${CM}?watch=1&resourceVersion=0`);
    const wb = await fb(`${CM}?watch=1&resourceVersion=0`);
    assert.equal(wa.status, 200);
    assert.equal(wb.status, 200);
    const sa = new WatchStream(wa, isRootCaEvent);
    const sb = new WatchStream(wb, isRootCaEvent);
    const revs: number[] = [];
    for (let i = 0; i < 10; i++) {
      revs.push(await create(i % 2 === 0 ? a.fetch : fb, `m${i}`));
    }
    for (const s of [sa, sb]) {
      const evs = await s.take(10, 30_000);
      assert.deepEqual(evs.map((e) => e.object.metadata.name), revs.map((_, i) => `m${i}`));
      assert.deepEqual(evs.map((e) => Number(e.object.metadata.resourceVersion)), revs);
    }
    // A write on the other server reaches this one's watch within about a second.
    const started = performance.now();
    await create(fb, "latency");
    const ev = await sa.next(30_000);
    assert.equal(ev?.object.metadata.name, "latency");
    console.log(`cross-server delivery: ${(performance.now() - started).toFixed(0)} ms`);
    // Lists from either cache agree.
    const la = await (await a.fetch(`${CM}?resourceVersion=0`)).json();
    const lb = await (await fb(`${CM}`)).json();
    assert.deepEqual(
      la.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      lb.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    );
    await sa.cancel();
    await sb.cancel();
  } finally {
    await b?.stop();
    await a.close();
    await sqld.stop();
    await Deno.remove(dirB, { recursive: true }).catch(() => {});
  }
});
