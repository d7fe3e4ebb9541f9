/**
 * What a DELETE answers, per kind, as kube-apiserver 1.32: a Success Status naming the object
 * for registries without ReturnDeletedObject (ConfigMap, Role), the object for those with it
 * (Pod, ServiceAccount, Namespace) and whenever finalizers keep the object; error details
 * leave out the core group.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { assertOk, assertStatus, call } from "./foundation_helpers.ts";
import type { KubeObject, Status } from "../../shared/api/meta/v1/types.ts";
import { decodeObject } from "../../shared/codec/protobuf/mod.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

Deno.test("DELETE answers a Success Status or the object, per kind, as kube-apiserver", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("a ConfigMap: Success Status, no group, kind is the resource", async () => {
      const cm = assertOk(await call(s, "POST", CMS, { metadata: { name: "c1" } }), 201);
      const reply = await call<Status>(s, "DELETE", `${CMS}/c1`);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { name: "c1", kind: "configmaps", uid: cm.metadata.uid },
      });
      assert.equal((await call(s, "GET", `${CMS}/c1`)).status, 404);
    });

    await t.step("the Success Status in Protobuf", async () => {
      assertOk(await call(s, "POST", CMS, { metadata: { name: "c4" } }), 201);
      const res = await s.fetch(`${CMS}/c4`, {
        method: "DELETE",
        headers: { accept: "application/vnd.kubernetes.protobuf" },
      });
      assert.equal(res.status, 200);
      const status = decodeObject(new Uint8Array(await res.arrayBuffer())) as unknown as Status;
      assert.equal(status.kind, "Status");
      assert.equal(status.status, "Success");
      assert.equal(status.details?.kind, "configmaps");
      assert.equal(status.details?.name, "c4");
    });

    await t.step("a Role: Success Status with the group", async () => {
      const path = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
      const role = assertOk(await call(s, "POST", path, { metadata: { name: "r1" }, rules: [] }));
      const reply = await call<Status>(s, "DELETE", `${path}/r1`);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.body.details, {
        name: "r1",
        group: "rbac.authorization.k8s.io",
        kind: "roles",
        uid: role.metadata.uid,
      });
    });

    await t.step("a dry-run delete of a ConfigMap: the Status, object kept", async () => {
      assertOk(await call(s, "POST", CMS, { metadata: { name: "c2" } }), 201);
      const reply = await call<Status>(s, "DELETE", `${CMS}/c2?dryRun=All`);
      assert.equal(reply.body.status, "Success", reply.text);
      assertOk(await call(s, "GET", `${CMS}/c2`), 200);
    });

    await t.step("a ConfigMap kept by a finalizer: the object", async () => {
      assertOk(
        await call(s, "POST", CMS, { metadata: { name: "c3", finalizers: ["example.com/x"] } }),
        201,
      );
      const reply = await call<KubeObject>(s, "DELETE", `${CMS}/c3`);
      assert.equal(reply.body.kind, "ConfigMap", reply.text);
      assert.ok(reply.body.metadata.deletionTimestamp);
      assertOk(
        await call(s, "PATCH", `${CMS}/c3`, { metadata: { finalizers: null } }, {
          "content-type": "application/merge-patch+json",
        }),
      );
    });

    await t.step("a Pod and a ServiceAccount: the deleted object", async () => {
      const pods = "/api/v1/namespaces/default/pods";
      assertOk(
        await call(s, "POST", pods, {
          metadata: { name: "p1" },
          spec: { containers: [{ name: "c", image: "busybox" }] },
        }),
        201,
      );
      const pod = await call<KubeObject>(s, "DELETE", `${pods}/p1?gracePeriodSeconds=0`);
      assert.equal(pod.body.kind, "Pod", pod.text);
      assert.equal(pod.body.metadata.name, "p1");
      const sas = "/api/v1/namespaces/default/serviceaccounts";
      assertOk(await call(s, "POST", sas, { metadata: { name: "sa1" } }), 201);
      const sa = await call<KubeObject>(s, "DELETE", `${sas}/sa1`);
      assert.equal(sa.body.kind, "ServiceAccount", sa.text);
    });

    await t.step("a StorageClass: the object; a PriorityClass: the Status", async () => {
      const scs = "/apis/storage.k8s.io/v1/storageclasses";
      assertOk(
        await call(s, "POST", scs, { metadata: { name: "fast" }, provisioner: "example.com/x" }),
        201,
      );
      const sc = await call<KubeObject>(s, "DELETE", `${scs}/fast`);
      assert.equal(sc.body.kind, "StorageClass", sc.text);
      const pcs = "/apis/scheduling.k8s.io/v1/priorityclasses";
      assertOk(await call(s, "POST", pcs, { metadata: { name: "high" }, value: 1000 }), 201);
      const pc = await call<Status>(s, "DELETE", `${pcs}/high`);
      assert.equal(pc.body.kind, "Status", pc.text);
      assert.deepEqual(
        { group: pc.body.details?.group, kind: pc.body.details?.kind },
        { group: "scheduling.k8s.io", kind: "priorityclasses" },
      );
    });

    await t.step("error details leave out the core group and keep others", async () => {
      const core = assertStatus(await call(s, "GET", `${CMS}/missing`), 404, "NotFound");
      assert.deepEqual(core.details, { name: "missing", kind: "configmaps" });
      const rbac = assertStatus(
        await call(s, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/missing"),
        404,
      );
      assert.equal(rbac.details?.group, "rbac.authorization.k8s.io");
      const invalid = assertStatus(
        await call(s, "POST", CMS, { metadata: { name: "Bad_Name" } }),
        422,
        "Invalid",
      );
      assert.equal("group" in (invalid.details ?? {}), false, JSON.stringify(invalid));
    });
  } finally {
    await s.close();
  }
});
