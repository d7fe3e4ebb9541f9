/**
 * Crash safety: 16 writers load a real API server process, which is killed with SIGKILL at a
 * random moment and restarted on the same data directory, five times. Every write the server
 * acknowledged is still there afterwards, resourceVersions never go backwards, and the
 * database's integrity check is clean. The seed is printed so a failure can be replayed with
 * `CRASH_SEED=<n>`.
 */
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";

const repoRoot = new URL("../../", import.meta.url).pathname;
const CMS = "/api/v1/namespaces/default/configmaps";
const WRITERS = 16;
const CRASHES = 5;

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** A small seeded generator (mulberry32), so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ServerProcess {
  fetch: Fetch;
  child: Deno.ChildProcess;
  close(): void;
}

/** Starts `cmd/apiserver.ts` on `dir` as a child process and waits until it is ready. */
async function startServerProcess(dir: string): Promise<ServerProcess> {
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
  const deadline = Date.now() + 120_000;
  while (!/apiserver ready at/.test(text)) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${text}`);
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
  const fetchIt: Fetch = (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (cfg.token) headers.set("authorization", `Bearer ${cfg.token}`);
    const signal = init.signal ?? AbortSignal.timeout(60_000);
    return fetch(cfg.server + path, { ...init, headers, client, signal });
  };
  return { fetch: fetchIt, child, close: () => client.close() };
}

/** What the server acknowledged: each object's resourceVersion and counter. */
type Acked = Map<string, { rv: number; n: number }>;

/** Acknowledged writes in this process, to tell when the writers are under way. */
let acknowledged = 0;

/**
 * One writer: creates its object, then bumps its counter, until `stopped()`. A request that
 * fails before then (the shared machine paused past a deadline, say) is tried again; a create
 * whose answer was lost is read back.
 */
async function writer(f: Fetch, name: string, acked: Acked, stopped: () => boolean) {
  let n = -1;
  while (!stopped()) {
    let res: Response;
    try {
      res = await (n < 0
        ? f(CMS, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ metadata: { name }, data: { n: "0" } }),
        })
        : f(`${CMS}/${name}`, {
          method: "PATCH",
          headers: { "content-type": "application/merge-patch+json" },
          body: JSON.stringify({ data: { n: String(n + 1) } }),
        }));
    } catch {
      if (!stopped()) await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    if (res.status === 409 && n < 0) {
      await res.body?.cancel();
      const got = await f(`${CMS}/${name}`).then((r) => r.json()).catch(() => undefined);
      if (got?.data?.n !== undefined) n = Number(got.data.n);
      continue;
    }
    if (res.status !== 200 && res.status !== 201) {
      await res.body?.cancel();
      throw new Error(`write of ${name}: ${res.status}`);
    }
    const body = await res.json();
    n = Number(body.data.n);
    acked.set(name, { rv: Number(body.metadata.resourceVersion), n });
    acknowledged++;
  }
}

/** Checks that every acknowledged write survived; returns the list's resourceVersion. */
async function verify(f: Fetch, acked: Acked, lastListRv: number): Promise<number> {
  const res = await f(CMS);
  const list = await res.json();
  assert.equal(res.status, 200, JSON.stringify(list));
  const listRv = Number(list.metadata.resourceVersion);
  assert.ok(listRv >= lastListRv, `list resourceVersion went back from ${lastListRv} to ${listRv}`);
  const stored = new Map<string, { rv: number; n: number }>();
  for (const item of list.items) {
    stored.set(item.metadata.name, {
      rv: Number(item.metadata.resourceVersion),
      n: Number(item.data?.n),
    });
  }
  for (const [name, a] of acked) {
    const s = stored.get(name);
    assert.ok(s, `acknowledged ${name} is gone`);
    assert.ok(s.n >= a.n, `${name}: counter ${s.n} behind the acknowledged ${a.n}`);
    assert.ok(s.rv >= a.rv, `${name}: resourceVersion ${s.rv} behind the acknowledged ${a.rv}`);
    assert.ok(listRv >= s.rv, `${name}: resourceVersion ${s.rv} above the list's ${listRv}`);
  }
  return listRv;
}

Deno.test("the server keeps every acknowledged write across SIGKILL and restart", async () => {
  const seed = Number(Deno.env.get("CRASH_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`crash test seed: ${seed} (replay with CRASH_SEED=${seed})`);
  const rand = random(seed);
  const dir = await Deno.makeTempDir({ prefix: "crash-test-" });
  const acked: Acked = new Map();
  let listRv = 0;
  try {
    for (let round = 0; round < CRASHES; round++) {
      const server = await startServerProcess(dir);
      try {
        listRv = await verify(server.fetch, acked, listRv);
        const errors: unknown[] = [];
        let killed = false;
        const writers = Array.from(
          { length: WRITERS },
          (_, i) =>
            writer(server.fetch, `w${i}-r${round}`, acked, () => killed).catch((e) =>
              errors.push(e)
            ),
        );
        // Kill at a random moment once the writers are under way.
        const before = acknowledged;
        const deadline = Date.now() + 120_000;
        while (acknowledged < before + WRITERS) {
          if (errors.length === WRITERS || Date.now() > deadline) {
            throw new Error(`the writers did not get under way: ${errors.map(String).join("; ")}`);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
        await new Promise((r) => setTimeout(r, 100 + rand() * 900));
        killed = true;
        server.child.kill("SIGKILL");
        await server.child.status;
        await Promise.all(writers);
      } finally {
        server.close();
      }
    }
    const server = await startServerProcess(dir);
    try {
      listRv = await verify(server.fetch, acked, listRv);
    } finally {
      server.child.kill("SIGKILL");
      await server.child.status;
      server.close();
    }
    const db = createClient({ url: `file:${dir}/state.db` });
    try {
      const rs = await db.execute("PRAGMA integrity_check");
      assert.equal(String(rs.rows[0][0]), "ok");
    } finally {
      db.close();
    }
  } catch (err) {
    throw new Error(`crash test failed with seed ${seed}: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
