import assert from "node:assert/strict";
import { HealthChecks, logCheck, namedCheck, storageCheck } from "../../../apiserver/health/mod.ts";
import { Logger } from "../../../shared/log/mod.ts";

const BASE = "https://127.0.0.1:6443";

async function get(h: HealthChecks, path: string, method = "GET") {
  const res = await h.handleHealth(new Request(BASE + path, { method }));
  if (!res) return undefined;
  return { status: res.status, body: await res.text(), headers: res.headers };
}

function server(opts: { storageOk?: boolean; hookDone?: boolean } = {}) {
  const h = new HealthChecks({ timeoutMs: 2000 });
  h.addHealthChecks(
    storageCheck(() =>
      opts.storageOk === false ? Promise.reject(new Error("database is locked")) : Promise.resolve()
    ),
  );
  const hook = h.addPostStartHook("bootstrap-objects");
  if (opts.hookDone !== false) hook.done();
  return { h, hook };
}

Deno.test("HealthChecks.handleHealth() answers with kube-apiserver's text", async (t) => {
  const cases: {
    name: string;
    path: string;
    setup?: Parameters<typeof server>[0];
    status: number;
    body: string;
  }[] = [
    { name: "healthz ok", path: "/healthz", status: 200, body: "ok" },
    { name: "livez ok", path: "/livez", status: 200, body: "ok" },
    { name: "readyz ok with trailing slash", path: "/readyz/", status: 200, body: "ok" },
    {
      name: "readyz verbose",
      path: "/readyz?verbose",
      status: 200,
      body: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/bootstrap-objects ok\n" +
        "[+]shutdown ok\nreadyz check passed\n",
    },
    {
      name: "livez verbose has no shutdown",
      path: "/livez?verbose=1",
      status: 200,
      body: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/bootstrap-objects ok\n" +
        "livez check passed\n",
    },
    {
      name: "healthz verbose with exclude",
      path: "/healthz?verbose&exclude=etcd&exclude=log",
      status: 200,
      body: "[+]ping ok\n[+]log excluded: ok\n[+]etcd excluded: ok\n" +
        "[+]poststarthook/bootstrap-objects ok\nhealthz check passed\n",
    },
    {
      name: "unknown exclude warns",
      path: "/livez?verbose&exclude=nope&exclude=storage",
      status: 200,
      body: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/bootstrap-objects ok\n" +
        'warn: some health checks cannot be excluded: no matches for "nope","storage"\nlivez check passed\n',
    },
    {
      name: "failing storage, always verbose, reason withheld",
      path: "/readyz",
      setup: { storageOk: false },
      status: 500,
      body: "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n" +
        "[+]poststarthook/bootstrap-objects ok\n[+]shutdown ok\nreadyz check failed\n",
    },
    {
      name: "failing check excluded",
      path: "/readyz?exclude=etcd",
      setup: { storageOk: false },
      status: 200,
      body: "ok",
    },
    {
      name: "post-start hook not finished",
      path: "/healthz",
      setup: { hookDone: false },
      status: 500,
      body:
        "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]poststarthook/bootstrap-objects failed: reason withheld\n" +
        "healthz check failed\n",
    },
    { name: "single check ok", path: "/readyz/ping", status: 200, body: "ok" },
    {
      name: "single post-start hook ok",
      path: "/livez/poststarthook/bootstrap-objects",
      status: 200,
      body: "ok",
    },
    {
      name: "single check failing shows its error",
      path: "/livez/etcd",
      setup: { storageOk: false },
      status: 500,
      body: "internal server error: database is locked\n",
    },
    {
      name: "single hook failing",
      path: "/readyz/poststarthook/bootstrap-objects",
      setup: { hookDone: false },
      status: 500,
      body: "internal server error: not finished\n",
    },
    { name: "shutdown only on readyz", path: "/readyz/shutdown", status: 200, body: "ok" },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const { h } = server(c.setup);
      const res = await get(h, c.path);
      assert.ok(res);
      assert.equal(res.body, c.body);
      assert.equal(res.status, c.status);
      assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    });
  }
});

Deno.test("HealthChecks.handleHealth() leaves other paths and 404s unknown checks", async (t) => {
  const { h } = server();
  const cases: [string, number | undefined][] = [
    ["/livez/shutdown", 404],
    ["/readyz/nope", 404],
    ["/healthzz", undefined],
    ["/api/v1", undefined],
    ["/metrics", undefined],
  ];
  for (const [path, status] of cases) {
    await t.step(path, async () => {
      const res = await get(h, path);
      assert.equal(res?.status, status);
      if (status === 404) {
        const body = JSON.parse(res!.body);
        assert.equal(body.kind, "Status");
        assert.equal(body.reason, "NotFound");
      }
    });
  }
});

Deno.test("HealthChecks.markShuttingDown() fails readyz only", async () => {
  const { h } = server();
  h.markShuttingDown();
  const ready = await get(h, "/readyz");
  assert.equal(ready?.status, 500);
  assert.ok(ready?.body.includes("[-]shutdown failed: reason withheld\n"));
  assert.equal((await get(h, "/livez"))?.status, 200);
  assert.equal((await get(h, "/healthz"))?.status, 200);
  assert.equal(
    (await get(h, "/readyz/shutdown"))?.body,
    "internal server error: process is shutting down\n",
  );
});

Deno.test("HealthChecks.addPostStartHook() flips when done and honours the livez grace period", async () => {
  let now = 1_000;
  const h = new HealthChecks({ livezGracePeriodMs: 5_000, clock: () => now });
  const hook = h.addPostStartHook("bootstrap-objects");
  assert.equal(hook.name, "poststarthook/bootstrap-objects");
  assert.equal((await get(h, "/readyz"))?.status, 500);
  assert.equal((await get(h, "/livez"))?.status, 200);
  now += 10_000;
  assert.equal((await get(h, "/livez"))?.status, 500);
  hook.done();
  assert.ok(hook.finished);
  assert.equal((await get(h, "/livez"))?.status, 200);
  assert.equal((await get(h, "/readyz"))?.status, 200);
});

Deno.test("HealthChecks runs checks with a timeout", async () => {
  const h = new HealthChecks({ timeoutMs: 20 });
  let aborted = false;
  h.addReadyzChecks(namedCheck("slow", (signal) =>
    new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => {
        aborted = true;
        resolve();
      });
    })));
  const res = await get(h, "/readyz/slow");
  assert.equal(res?.status, 500);
  assert.equal(res?.body, "internal server error: timed out after 20ms\n");
  assert.ok(aborted);
  assert.equal((await get(h, "/livez"))?.status, 200);
});

Deno.test("HealthChecks reports synchronous throws and HEAD without body", async (t) => {
  const h = new HealthChecks();
  h.addLivezChecks(namedCheck("boom", () => {
    throw new Error("sync failure");
  }));
  await t.step("sync throw", async () => {
    assert.equal((await get(h, "/livez/boom"))?.body, "internal server error: sync failure\n");
  });
  await t.step("HEAD", async () => {
    const res = await get(h, "/healthz", "HEAD");
    assert.equal(res?.status, 200);
    assert.equal(res?.body, "");
  });
  await t.step("duplicate names are rejected", () => {
    assert.throws(() => h.addLivezChecks(namedCheck("boom", () => {})), TypeError);
    assert.throws(() => h.addReadyzChecks(namedCheck("shutdown", () => {})), TypeError);
  });
});

Deno.test("logCheck() fails after a failed log write and logs failures at -v=2", async () => {
  let broken = true;
  const lines: string[] = [];
  const logger = new Logger({
    verbosity: 2,
    sink: (l) => {
      if (broken) throw new Error("EPIPE");
      lines.push(l);
    },
  });
  logger.info("lost");
  await assert.rejects(async () => await logCheck(logger).check(new AbortController().signal));
  broken = false;
  const h = new HealthChecks({ logger });
  h.addReadyzChecks(storageCheck(() => Promise.reject(new Error("disk I/O error"))));
  const res = await get(h, "/readyz");
  assert.equal(res?.status, 500);
  assert.ok(!res?.body.includes("disk I/O error"));
  assert.ok(
    lines.some((l) => l.includes("disk I/O error") && l.includes("etcd check failed: readyz")),
  );
});

Deno.test("HealthChecks reports each root check's result to onCheckResult", async () => {
  const results: string[] = [];
  const health = new HealthChecks({
    onCheckResult: (check, endpoint, ok) => results.push(`${endpoint}:${check}:${ok}`),
  });
  health.addPostStartHook("never-done");
  await health.handleHealth(new Request(`${BASE}/readyz?exclude=log`));
  await health.handleHealth(new Request(`${BASE}/livez/ping`));
  assert.deepEqual(results, [
    "readyz:ping:true",
    "readyz:poststarthook/never-done:false",
    "readyz:shutdown:true",
  ]);
});
