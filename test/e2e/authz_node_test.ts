import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { jsonCall as call, jsonOk as ok } from "../support/json_call.ts";

const NODE1 = { "impersonate-user": "system:node:n1", "impersonate-group": "system:nodes" };

const pod = (name: string, node: string, secret: string) => ({
  metadata: { name },
  spec: {
    nodeName: node,
    containers: [{ name: "c", image: "busybox:1" }],
    volumes: [{ name: "s", secret: { secretName: secret } }],
  },
});

Deno.test("Node authorizer and NodeRestriction confine a node to its own objects", async (t) => {
  // NodeRestriction is off by default, as in kube-apiserver: clusters with node agents enable it.
  const srv = await startTestServer(["--enable-admission-plugins=NodeRestriction"]);
  try {
    for (const n of ["n1", "n2"]) {
      await ok(srv, "POST", "/api/v1/nodes", { metadata: { name: n } });
      await ok(srv, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", {
        metadata: { name: n },
        spec: { holderIdentity: n },
      });
      await ok(srv, "POST", "/api/v1/namespaces/default/secrets", {
        metadata: { name: `s-${n}` },
        data: { k: "dg==" },
      });
    }
    await ok(srv, "POST", "/api/v1/namespaces/default/pods", pod("p1", "n1", "s-n1"));
    await ok(srv, "POST", "/api/v1/namespaces/default/pods", pod("p2", "n2", "s-n2"));

    await t.step("reads the Secret of a pod bound to it", async () => {
      await eventually(
        "the graph has p1",
        async () =>
          (await call(srv, "GET", "/api/v1/namespaces/default/secrets/s-n1", undefined, NODE1))
            .status === 200,
      );
    });

    await t.step("is denied a Secret used only by another node's pod", async () => {
      const r = await call(srv, "GET", "/api/v1/namespaces/default/secrets/s-n2", undefined, NODE1);
      assert.equal(r.status, 403);
      assert.equal(
        r.json.message,
        `secrets "s-n2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`,
      );
      const list = await call(srv, "GET", "/api/v1/namespaces/default/secrets", undefined, NODE1);
      assert.equal(list.status, 403);
    });

    await t.step("reads pods and nodes", async () => {
      assert.equal((await call(srv, "GET", "/api/v1/pods", undefined, NODE1)).status, 200);
      assert.equal((await call(srv, "GET", "/api/v1/nodes/n2", undefined, NODE1)).status, 200);
    });

    await t.step("cannot modify another node's Node, may modify its own", async () => {
      const n2 = await ok(srv, "GET", "/api/v1/nodes/n2") as { metadata: { labels?: object } };
      n2.metadata.labels = { a: "b" };
      const r = await call(srv, "PUT", "/api/v1/nodes/n2", n2, NODE1);
      assert.equal(r.status, 403);
      assert.equal(
        r.json.message,
        `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`,
      );
      const n1 = await ok(srv, "GET", "/api/v1/nodes/n1") as {
        metadata: { labels?: Record<string, string> };
      };
      n1.metadata.labels = { "kubernetes.io/hostname": "n1" };
      assert.equal((await call(srv, "PUT", "/api/v1/nodes/n1", n1, NODE1)).status, 200);
      const again = await ok(srv, "GET", "/api/v1/nodes/n1") as {
        metadata: { labels?: Record<string, string> };
      };
      again.metadata.labels = { ...again.metadata.labels, "node-restriction.kubernetes.io/x": "y" };
      const restricted = await call(srv, "PUT", "/api/v1/nodes/n1", again, NODE1);
      assert.equal(restricted.status, 403);
      assert.match(String(restricted.json.message), /is not allowed to modify labels/);
    });

    await t.step("cannot modify another node's Lease, may renew its own", async () => {
      const path = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
      const l2 = await ok(srv, "GET", `${path}/n2`);
      const r = await call(srv, "PUT", `${path}/n2`, l2, NODE1);
      assert.equal(r.status, 403);
      assert.match(String(r.json.message), /can only access node lease with the same name/);
      const l1 = await ok(srv, "GET", `${path}/n1`);
      assert.equal((await call(srv, "PUT", `${path}/n1`, l1, NODE1)).status, 200);
    });

    await t.step(
      "updates status only of pods bound to it and creates only mirror pods",
      async () => {
        const p2 = await ok(srv, "GET", "/api/v1/namespaces/default/pods/p2");
        const r = await call(srv, "PUT", "/api/v1/namespaces/default/pods/p2/status", p2, NODE1);
        assert.equal(r.status, 403);
        assert.match(
          String(r.json.message),
          /can only update pod status for pods with spec.nodeName/,
        );
        const p1 = await ok(srv, "GET", "/api/v1/namespaces/default/pods/p1");
        assert.equal(
          (await call(srv, "PUT", "/api/v1/namespaces/default/pods/p1/status", p1, NODE1)).status,
          200,
        );
        const plain = await call(srv, "POST", "/api/v1/namespaces/default/pods", {
          metadata: { name: "x" },
          spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox:1" }] },
        }, NODE1);
        assert.equal(plain.status, 403);
        assert.match(String(plain.json.message), /can only create mirror pods/);
      },
    );
  } finally {
    await srv.close();
  }
});
