/**
 * End-to-end with @kubernetes/client-node: a PodDisruptionBudget through PolicyV1Api, its
 * status from the disruption controller, and `createNamespacedPodEviction` (201, then 429 once
 * the budget allows no more disruptions).
 */
import assert from "node:assert/strict";
import { CoreV1Api, KubeConfig, PolicyV1Api } from "@kubernetes/client-node";
import { startTestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";

Deno.test({
  name: "@kubernetes/client-node creates a PodDisruptionBudget and evicts pods under it",
  // The client's HTTP agent keeps sockets alive past a test's end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const s = await startTestServer();
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(s.server.kubeconfigPath);
      const core = kc.makeApiClient(CoreV1Api);
      const policy = kc.makeApiClient(PolicyV1Api);
      const namespace = "default";
      const created = await policy.createNamespacedPodDisruptionBudget({
        namespace,
        body: {
          metadata: { name: "web" },
          spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
        },
      });
      assert.equal(created.status?.disruptionsAllowed, 0);
      for (const name of ["a", "b"]) {
        await core.createNamespacedPod({
          namespace,
          body: {
            metadata: { name, labels: { app: "web" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        });
        const pod = await core.readNamespacedPod({ name, namespace });
        pod.status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
        await core.replaceNamespacedPodStatus({ name, namespace, body: pod });
      }
      const pdb = await eventually("the budget's status", async () => {
        const got = await policy.readNamespacedPodDisruptionBudget({ name: "web", namespace });
        return got.status?.disruptionsAllowed === 1 && got;
      });
      assert.equal(pdb.status?.currentHealthy, 2);
      assert.equal(pdb.status?.expectedPods, 2);
      await core.createNamespacedPodEviction({
        name: "a",
        namespace,
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "a", namespace } },
      });
      await eventually("the budget to allow none", async () => {
        const got = await policy.readNamespacedPodDisruptionBudget({ name: "web", namespace });
        return got.status?.disruptionsAllowed === 0 && got.status?.currentHealthy === 1;
      });
      await assert.rejects(
        core.createNamespacedPodEviction({
          name: "b",
          namespace,
          body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "b", namespace } },
        }),
        (err: { code?: number; body?: string }) => {
          assert.equal(err.code, 429);
          assert.match(String(err.body), /violate the pod's disruption budget/);
          return true;
        },
      );
      const left = await core.listNamespacedPod({ namespace });
      assert.deepEqual(left.items.map((p) => p.metadata?.name), ["b"]);
    } finally {
      await s.close();
    }
  },
});
