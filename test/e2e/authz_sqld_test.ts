/**
 * Two API servers — this process and a child process — on one real libSQL server: an RBAC
 * change made through either reaches the other's authorizer (its RBAC index follows the
 * change feed, which reads every server's commits from the shared change log).
 */
import assert from "node:assert/strict";
import { locateSqld, startSqld } from "../apiserver/storage/sqld_server.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { startTestServer } from "../support/test_server.ts";

const repoRoot = new URL("../../", import.meta.url).pathname;
const CMS = "/api/v1/namespaces/default/configmaps";
const RBS = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
/** The admin impersonating an ordinary user (the admin may impersonate anyone). */
const AS_ALICE = { "impersonate-user": "alice" };

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** Starts `cmd/apiserver.ts` on `storageUrl` as a child process; resolves with a fetch for it. */
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
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
  };
  let text = "";
  const deadline = Date.now() + 120_000;
  try {
    while (!/apiserver ready at/.test(text)) {
      if (Date.now() > deadline) throw new Error(`child did not start: ${text}`);
      const { done, value } = await reader.read();
      if (done) throw new Error(`child exited: ${text}`);
      text += value;
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    await stop();
    throw err;
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
      await stop();
      await drain;
    },
  };
}

/** The status of listing config maps as alice. */
async function aliceLists(f: Fetch): Promise<number> {
  const res = await f(CMS, { headers: AS_ALICE });
  await res.body?.cancel();
  return res.status;
}

/** Polls until alice's list answers `want`; returns how long it took (ms). */
async function waitForAlice(f: Fetch, want: number, what: string): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + 30_000;
  let got = 0;
  while (Date.now() < deadline) {
    got = await aliceLists(f);
    if (got === want) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: alice still gets ${got}, not ${want}, after 30 s`);
}

function roleBinding(name: string) {
  return JSON.stringify({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
  });
}

async function send(f: Fetch, method: string, path: string, body?: string): Promise<void> {
  const res = await f(path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body ? { body } : {}),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
}

Deno.test("a RoleBinding made on one API server grants access on another sharing the sqld", async () => {
  const bin = await locateSqld();
  if (typeof bin !== "string") {
    console.warn(`skipping: ${bin.skip}`);
    return;
  }
  const sqld = await startSqld(bin);
  const dirB = await Deno.makeTempDir({ prefix: "apiserver-b-" });
  let a: Awaited<ReturnType<typeof startTestServer>> | undefined;
  let b: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    a = await startTestServer([`--storage-url=${sqld.url}`]);
    b = await startChild(sqld.url, dirB);
    const fa = a.fetch;
    const fb = b.fetch;
    // Both servers have bootstrapped the default policy, so "view" exists on both.
    await waitForAlice(fa, 403, "before any binding, on A");
    assert.equal(await aliceLists(fb), 403, "before any binding, on B");

    // Made on A, granted on B.
    await send(fa, "POST", RBS, roleBinding("alice-view"));
    await waitForAlice(fa, 200, "binding created on A, seen from A");
    const grantMs = await waitForAlice(fb, 200, "binding created on A, seen from B");
    // Removed on B, revoked on A.
    await send(fb, "DELETE", `${RBS}/alice-view`);
    await waitForAlice(fb, 403, "binding deleted on B, seen from B");
    const revokeMs = await waitForAlice(fa, 403, "binding deleted on B, seen from A");
    console.log(
      `cross-server RBAC: grant seen after ${grantMs.toFixed(0)} ms, ` +
        `revocation after ${revokeMs.toFixed(0)} ms`,
    );
  } finally {
    await b?.stop();
    await a?.close();
    await sqld.stop();
    await Deno.remove(dirB, { recursive: true }).catch(() => {});
  }
});
