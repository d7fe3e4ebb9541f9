import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";

Deno.test("startServer() serves the system namespaces over HTTPS", async () => {
  const t = await startTestServer();
  try {
    const res = await t.fetch("/api/v1/namespaces");
    assert.equal(res.status, 200);
    const list = await res.json();
    assert.deepEqual(
      list.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ["default", "kube-node-lease", "kube-public", "kube-system"],
    );
    const anon = await t.fetch("/api/v1/namespaces", { auth: false });
    assert.equal(anon.status, 403);
    await anon.body?.cancel();
    const bad = await t.fetch("/api/v1/namespaces", { headers: { authorization: "Bearer nope" } });
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).reason, "Unauthorized");
  } finally {
    await t.close();
  }
});
