import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

async function post(t: TestServer, path: string, body: unknown) {
  const res = await t.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 201, JSON.stringify(json));
  return json;
}

async function status(t: TestServer, path: string, init?: RequestInit) {
  const res = await t.fetch(path, init);
  await res.body?.cancel();
  return res.status;
}

async function ownerAndDependent(t: TestServer, name: string) {
  const owner = await post(t, "/api/v1/namespaces/default/configmaps", {
    metadata: { name: `${name}-owner` },
  });
  await post(t, "/api/v1/namespaces/default/configmaps", {
    metadata: {
      name: `${name}-dep`,
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: owner.metadata.name,
        uid: owner.metadata.uid,
      }],
    },
  });
  return owner;
}

function del(policy: string) {
  return {
    method: "DELETE",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: policy }),
  };
}

Deno.test("GarbageCollector deletes dependents and serves the orphan and foreground finalizers", async (t) => {
  const s = await startTestServer();
  const cm = "/api/v1/namespaces/default/configmaps";
  try {
    await t.step("background: the dependent goes after its owner", async () => {
      await ownerAndDependent(s, "bg");
      assert.equal(await status(s, `${cm}/bg-owner`, del("Background")), 200);
      await eventually("dependent deleted", async () => await status(s, `${cm}/bg-dep`) === 404);
    });
    await t.step("orphan: the dependent stays without its owner reference", async () => {
      await ownerAndDependent(s, "or");
      assert.equal(await status(s, `${cm}/or-owner`, del("Orphan")), 200);
      await eventually("owner deleted", async () => await status(s, `${cm}/or-owner`) === 404);
      const dep = await (await s.fetch(`${cm}/or-dep`)).json();
      assert.equal(dep.metadata.ownerReferences, undefined);
    });
    await t.step("foreground: dependents first, then the owner", async () => {
      await ownerAndDependent(s, "fg");
      assert.equal(await status(s, `${cm}/fg-owner`, del("Foreground")), 200);
      await eventually(
        "both deleted",
        async () =>
          await status(s, `${cm}/fg-dep`) === 404 && await status(s, `${cm}/fg-owner`) === 404,
      );
    });
    await t.step("an owner of a kind not served is never presumed gone", async () => {
      await post(s, cm, {
        metadata: {
          name: "foreign",
          ownerReferences: [{
            apiVersion: "example.com/v1",
            kind: "Widget",
            name: "w",
            uid: "u-1",
          }],
        },
      });
      await s.server.storage.ping();
      assert.equal(await status(s, `${cm}/foreign`), 200);
    });
  } finally {
    await s.close();
  }
});
