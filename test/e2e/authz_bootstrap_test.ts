import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { jsonCall as call } from "../support/json_call.ts";

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

Deno.test("default roles are restored at restart unless autoupdate is false", async () => {
  const dir = await Deno.makeTempDir({ prefix: "authz-bootstrap-" });
  try {
    const first = await startTestServer([], { dir, keepDir: true });
    try {
      assert.equal((await call(first, "DELETE", `${RBAC}/clusterroles/view`)).status, 200);
      assert.equal(
        (await call(first, "DELETE", `${RBAC}/clusterrolebindings/system:monitoring`)).status,
        200,
      );
      const basic = (await call(first, "GET", `${RBAC}/clusterroles/system:basic-user`)).json;
      basic.rules = [];
      assert.equal(
        (await call(first, "PUT", `${RBAC}/clusterroles/system:basic-user`, basic)).status,
        200,
      );
      const disc = (await call(first, "GET", `${RBAC}/clusterroles/system:discovery`)).json;
      disc.rules = [];
      disc.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "false";
      assert.equal(
        (await call(first, "PUT", `${RBAC}/clusterroles/system:discovery`, disc)).status,
        200,
      );
    } finally {
      await first.close();
    }
    const second = await startTestServer([], { dir });
    try {
      const view = await call(second, "GET", `${RBAC}/clusterroles/view`);
      assert.equal(view.status, 200);
      assert.equal(view.json.metadata.labels["kubernetes.io/bootstrapping"], "rbac-defaults");
      await eventually("view aggregated again", async () => {
        const v = await call(second, "GET", `${RBAC}/clusterroles/view`);
        return (v.json.rules ?? []).length > 0;
      });
      const mon = await call(second, "GET", `${RBAC}/clusterrolebindings/system:monitoring`);
      assert.equal(mon.status, 200);
      assert.deepEqual(mon.json.subjects.map((s: { name: string }) => s.name), [
        "system:monitoring",
      ]);
      const basic = await call(second, "GET", `${RBAC}/clusterroles/system:basic-user`);
      assert.ok(basic.json.rules.length >= 2, "missing rules restored");
      const disc = await call(second, "GET", `${RBAC}/clusterroles/system:discovery`);
      assert.deepEqual(disc.json.rules, [], "autoupdate false is left alone");
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("system:monitoring and public info reach the health endpoints and /metrics", async () => {
  const srv = await startTestServer();
  try {
    const mon = { "impersonate-user": "prom", "impersonate-group": "system:monitoring" };
    for (const path of ["/metrics", "/readyz/ping", "/livez"]) {
      const r = await srv.fetch(path, { headers: mon });
      assert.equal(r.status, 200, path);
      await r.body?.cancel();
    }
    const plain = await srv.fetch("/metrics", { headers: { "impersonate-user": "someone" } });
    assert.equal(plain.status, 403);
    await plain.body?.cancel();
    const anon = await srv.fetch("/healthz", { auth: false });
    assert.equal(anon.status, 200);
    await anon.body?.cancel();
    const anonApi = await srv.fetch("/api", { auth: false });
    assert.equal(anonApi.status, 403);
    await anonApi.body?.cancel();
  } finally {
    await srv.close();
  }
});
