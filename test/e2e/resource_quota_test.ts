/**
 * End-to-end over HTTPS: ResourceQuota status computed by the controller, admission refusing
 * creates over quota with kube's 403 and requiring the limits a quota names, concurrent creates
 * never overshooting, dry runs not charged, deletions replenished; and with kubectl where
 * present (`pods: 2` stops the third `kubectl run`).
 */
import assert from "node:assert/strict";
import { kubectlFor, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";

async function send(s: TestServer, method: string, path: string, body?: unknown) {
  const res = await s.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { code: res.status, body: await res.json() };
}

function pod(name: string, resources?: Record<string, unknown>) {
  return {
    metadata: { name },
    spec: { containers: [{ name: "c", image: "nginx", ...(resources ? { resources } : {}) }] },
  };
}

/** Waits until the quota's status.used satisfies `ok`. */
async function waitForUsed(
  s: TestServer,
  ns: string,
  name: string,
  ok: (used: Record<string, string>) => boolean,
): Promise<Record<string, string>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await send(s, "GET", `/api/v1/namespaces/${ns}/resourcequotas/${name}`);
    const used = r.body.status?.used;
    if (used && ok(used)) return used;
    if (Date.now() > deadline) {
      throw new Error(`quota status never matched: ${JSON.stringify(r.body.status)}`);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function createQuota(s: TestServer, ns: string, name: string, spec: Record<string, unknown>) {
  await send(s, "POST", "/api/v1/namespaces", { metadata: { name: ns } });
  const r = await send(s, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, {
    metadata: { name },
    spec,
  });
  assert.equal(r.code, 201, JSON.stringify(r.body));
}

Deno.test("ResourceQuota: status computed, creates over quota refused, dry run not charged, deletion replenishes", async () => {
  const s = await startTestServer();
  try {
    await createQuota(s, "q", "compute", {
      hard: { pods: "2", "requests.cpu": "1", configmaps: "20" },
    });
    // The namespace's kube-root-ca.crt (root-ca-cert-publisher, as in kube) counts.
    const initial = await waitForUsed(s, "q", "compute", (u) => u.configmaps === "1");
    assert.deepEqual(initial, { pods: "0", "requests.cpu": "0", configmaps: "1" });
    let r = await send(s, "POST", "/api/v1/namespaces/q/pods", pod("no-requests"));
    assert.equal(r.code, 403);
    assert.equal(
      r.body.message,
      `pods "no-requests" is forbidden: failed quota: compute: must specify requests.cpu for: c`,
    );
    const cpu = (v: string) => ({ requests: { cpu: v } });
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/q/pods?dryRun=All", pod("dry", cpu("600m")))).code,
      201,
    );
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/q/pods", pod("a", cpu("600m")))).code,
      201,
    );
    r = await send(s, "POST", "/api/v1/namespaces/q/pods", pod("b", cpu("500m")));
    assert.equal(r.code, 403);
    assert.equal(
      r.body.message,
      `pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1`,
    );
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/q/pods", pod("b", cpu("100m")))).code,
      201,
    );
    r = await send(s, "POST", "/api/v1/namespaces/q/pods", pod("c", cpu("100m")));
    assert.equal(r.code, 403);
    assert.equal(
      r.body.message,
      `pods "c" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2`,
    );
    const used =
      (await send(s, "GET", "/api/v1/namespaces/q/resourcequotas/compute")).body.status.used;
    assert.equal(used.pods, "2");
    assert.equal(used["requests.cpu"], "700m");
    assert.equal(
      (await send(s, "DELETE", "/api/v1/namespaces/q/pods/a?gracePeriodSeconds=0")).code,
      200,
    );
    await waitForUsed(s, "q", "compute", (u) => u.pods === "1" && u["requests.cpu"] === "100m");
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/q/pods", pod("c", cpu("100m")))).code,
      201,
    );
    assert.equal(
      (await send(s, "POST", "/api/v1/namespaces/q/configmaps", { metadata: { name: "cm" } })).code,
      201,
    );
    await waitForUsed(s, "q", "compute", (u) => u.configmaps === "2");
  } finally {
    await s.close();
  }
});

Deno.test("ResourceQuota: concurrent creates never overshoot the quota", async () => {
  const s = await startTestServer();
  try {
    await createQuota(s, "race", "objects", { hard: { "count/configmaps": "5", services: "3" } });
    // The namespace's kube-root-ca.crt (root-ca-cert-publisher, as in kube) takes one.
    await waitForUsed(s, "race", "objects", (u) => u["count/configmaps"] === "1");
    const results = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          send(s, "POST", "/api/v1/namespaces/race/configmaps", { metadata: { name: `cm-${i}` } }),
      ),
    );
    const codes = results.map((r) => r.code);
    assert.equal(codes.filter((c) => c === 201).length, 4, JSON.stringify(codes));
    assert.equal(codes.filter((c) => c === 403).length, 16, JSON.stringify(codes));
    for (const r of results.filter((r) => r.code === 403)) {
      assert.match(
        r.body.message,
        /exceeded quota: objects, requested: count\/configmaps=1, used: count\/configmaps=5, limited: count\/configmaps=5/,
      );
    }
    const list = await send(s, "GET", "/api/v1/namespaces/race/configmaps");
    assert.equal(list.body.items.length, 5, "four and kube-root-ca.crt");
    const svc = (i: number) => ({ metadata: { name: `s${i}` }, spec: { ports: [{ port: 80 }] } });
    const services = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => send(s, "POST", "/api/v1/namespaces/race/services", svc(i)),
      ),
    );
    assert.equal(services.filter((r) => r.code === 201).length, 3);
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "kubectl: a ResourceQuota with pods: 2 stops the third kubectl run",
  ignore: skipWithoutKubectl("the ResourceQuota kubectl test"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      const created = await runKubectl(k, ["create", "quota", "two", "--hard=pods=2"]);
      assert.equal(created.code, 0, created.stderr);
      await waitForUsed(s, "default", "two", (u) => u.pods === "0");
      for (const name of ["one", "two"]) {
        const run = await runKubectl(k, ["run", name, "--image=nginx"]);
        assert.equal(run.code, 0, run.stderr);
      }
      const third = await runKubectl(k, ["run", "three", "--image=nginx"]);
      assert.notEqual(third.code, 0);
      assert.match(
        third.stderr,
        /Error from server \(Forbidden\): pods "three" is forbidden: exceeded quota: two, requested: pods=1, used: pods=2, limited: pods=2/,
      );
      const described = await runKubectl(k, ["describe", "quota", "two"]);
      assert.match(described.stdout, /pods\s+2\s+2/);
    } finally {
      await s.close();
    }
  },
});
