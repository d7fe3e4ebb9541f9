/**
 * Graceful shutdown of the real executable: with `--shutdown-delay-duration=5s`, SIGTERM makes
 * readyz fail at once with `[-]shutdown failed`, requests in the delay are still served, a
 * watch then ends with its stream closed cleanly, and the process exits 0.
 */
import assert from "node:assert/strict";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";

const repoRoot = new URL("../../", import.meta.url).pathname;

async function startProcess(dir: string, flags: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${repoRoot}cmd/apiserver.ts`,
      `--data-dir=${dir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      "-v=2",
      ...flags,
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
  const drained = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      if (Deno.env.get("SHUTDOWN_DEBUG")) console.error("SERVER", value);
      text += value;
    }
  })();
  const cfg = await loadKubeconfig(`${dir}/admin.kubeconfig`);
  const tls = {
    caCerts: [cfg.caPem!],
    ...(cfg.clientCertPem ? { cert: cfg.clientCertPem, key: cfg.clientKeyPem } : {}),
  };
  const client = Deno.createHttpClient(tls);
  const http1 = Deno.createHttpClient({ ...tls, http2: false });
  const get = (path: string, over = client) => {
    const headers = new Headers();
    if (cfg.token) headers.set("authorization", `Bearer ${cfg.token}`);
    return fetch(cfg.server + path, { headers, client: over, signal: AbortSignal.timeout(60_000) });
  };
  const close = () => (client.close(), http1.close());
  return { child, get, http1, close, log: () => drained };
}

Deno.test("SIGTERM: readyz fails at once, requests served in the delay, watch ends, exit 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "apiserver-shutdown-" });
  const p = await startProcess(dir, ["--shutdown-delay-duration=5s"]);
  try {
    const ready = await p.get("/readyz");
    assert.equal(ready.status, 200);
    await ready.body?.cancel();
    let signalled = Date.now();
    const watchEnd = async (client?: Deno.HttpClient) => {
      const watch = await p.get("/api/v1/namespaces/default/configmaps?watch=1", client);
      assert.equal(watch.status, 200);
      // Wrapped: an async function returning a promise would wait for it.
      return {
        end: (async () => {
          const reader = watch.body!.getReader();
          for (;;) if ((await reader.read()).done) return "clean";
        })().catch((err) => `failed after ${Date.now() - signalled} ms: ${err}`),
      };
    };
    const h1Watch = await watchEnd(p.http1);
    const h2Watch = await watchEnd();

    signalled = Date.now();
    p.child.kill("SIGTERM");
    let body = "";
    for (;;) {
      const res = await p.get("/readyz?verbose");
      body = await res.text();
      if (res.status === 500) break;
      assert.ok(Date.now() - signalled < 3000, "readyz still passes 3 s after SIGTERM");
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(body, /\[-\]shutdown failed: reason withheld\n/);
    assert.match(body, /readyz check failed/);
    const live = await p.get("/livez");
    assert.equal(live.status, 200, "livez keeps passing while shutting down");
    await live.body?.cancel();

    const list = await p.get("/api/v1/namespaces/default/configmaps");
    assert.equal(list.status, 200, "a request in the delay is served");
    await list.body?.cancel();
    assert.ok(Date.now() - signalled < 5000, "the GET did not land in the delay; rerun");

    assert.equal(await h2Watch.end, "clean");
    assert.equal(await h1Watch.end, "clean");
    assert.ok(Date.now() - signalled >= 4500, "the watch ended before the delay was over");
    const status = await p.child.status;
    assert.equal(status.code, 0, await p.log());
    const log = await p.log();
    assert.match(log, /graceful shutdown: done/);
    await assert.rejects(p.get("/readyz"), "the listener is closed");
  } finally {
    p.close();
    try {
      p.child.kill("SIGKILL");
    } catch { /* exited */ }
    await p.child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
