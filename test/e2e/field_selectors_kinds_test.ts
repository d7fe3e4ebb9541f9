/**
 * Per-kind field selectors as kube-apiserver 1.32's field label conversions and GetAttrs have
 * them: which labels each kind takes (with Pod's `spec.host` alias), their values, and each
 * kind's own error for the others.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { assertOk, assertStatus, call, list, names } from "./foundation_helpers.ts";

const NS = "/api/v1/namespaces/default";
const POD_TEMPLATE = {
  metadata: { labels: { app: "x" } },
  spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] },
};

async function select(s: TestServer, path: string, selector: string): Promise<string[]> {
  return names(assertOk(await list(s, `${path}?fieldSelector=${encodeURIComponent(selector)}`)));
}

async function rejected(s: TestServer, path: string, selector: string): Promise<string> {
  const st = assertStatus(
    await list(s, `${path}?fieldSelector=${encodeURIComponent(selector)}`),
    400,
    "BadRequest",
  );
  return st.message ?? "";
}

Deno.test("field selectors follow kube-apiserver's per-kind field labels", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("pods: spec.host is spec.nodeName; status.podIPs is accepted", async () => {
      for (const [name, nodeName] of [["p1", "n1"], ["p2", ""]]) {
        assertOk(
          await call(s, "POST", `${NS}/pods`, {
            metadata: { name },
            spec: { ...POD_TEMPLATE.spec, ...(nodeName ? { nodeName } : {}) },
          }),
          201,
        );
      }
      assert.deepEqual(await select(s, `${NS}/pods`, "spec.host=n1"), ["p1"]);
      assert.deepEqual(await select(s, `${NS}/pods`, "status.podIPs="), ["p1", "p2"]);
      assert.deepEqual(await select(s, `${NS}/pods`, "spec.hostNetwork=false"), ["p1", "p2"]);
      assert.equal(
        await rejected(s, `${NS}/pods`, "spec.image=x"),
        "field label not supported: spec.image",
      );
    });

    await t.step("namespaces: status.phase, not the bare name", async () => {
      assert.deepEqual(
        await select(s, "/api/v1/namespaces", "status.phase=Active,metadata.name=default"),
        ["default"],
      );
      assert.equal(
        await rejected(s, "/api/v1/namespaces", "name=default"),
        "field label not supported: name",
      );
    });

    await t.step("replicationcontrollers: status.replicas", async () => {
      assertOk(
        await call(s, "POST", `${NS}/replicationcontrollers`, {
          metadata: { name: "rc1" },
          spec: {
            replicas: 0,
            selector: { app: "x" },
            template: { ...POD_TEMPLATE, spec: { ...POD_TEMPLATE.spec, restartPolicy: "Always" } },
          },
        }),
        201,
      );
      assert.deepEqual(await select(s, `${NS}/replicationcontrollers`, "status.replicas=0"), [
        "rc1",
      ]);
      assert.deepEqual(await select(s, `${NS}/replicationcontrollers`, "status.replicas=1"), []);
    });

    await t.step("replicasets (apps/v1): metadata only, as in kube 1.32", async () => {
      assert.equal(
        await rejected(s, "/apis/apps/v1/namespaces/default/replicasets", "status.replicas=0"),
        '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
      );
    });

    await t.step("jobs: status.successful, and batchv1.Job's own error", async () => {
      const jobs = "/apis/batch/v1/namespaces/default/jobs";
      assertOk(
        await call(s, "POST", jobs, { metadata: { name: "j1" }, spec: { template: POD_TEMPLATE } }),
        201,
      );
      assert.deepEqual(await select(s, jobs, "status.successful=0"), ["j1"]);
      assert.equal(
        await rejected(s, jobs, "status.failed=0"),
        'field label "status.failed" not supported for batchv1.Job',
      );
    });

    await t.step("services: spec.clusterIP and spec.type", async () => {
      assertOk(
        await call(s, "POST", `${NS}/services`, {
          metadata: { name: "svc1" },
          spec: { type: "NodePort", ports: [{ port: 80 }] },
        }),
        201,
      );
      assert.deepEqual(await select(s, `${NS}/services`, "spec.type=NodePort"), ["svc1"]);
      assert.deepEqual(await select(s, "/api/v1/services", "spec.clusterIP=None"), []);
      const kubernetes = await select(s, "/api/v1/services", "spec.type=ClusterIP");
      assert.deepEqual(kubernetes, ["kubernetes"]);
    });
  } finally {
    await s.close();
  }
});
