import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import {
  budgetStatus,
  DELETION_TIMEOUT_MS,
  type ScaleOf,
} from "../../../../../apiserver/registry/policy/poddisruptionbudgets/disruption.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const owner = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  name: "rs",
  uid: "u1",
  controller: true,
};
const pod = (
  name: string,
  ready: boolean,
  extra: Partial<KubeObject["metadata"]> = {},
): KubeObject => ({
  metadata: { name, namespace: "d", labels: { app: "a" }, ...extra },
  status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
});
const pdb = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: "b", namespace: "d", generation: 3 },
  spec: { selector: { matchLabels: { app: "a" } }, ...spec },
  status,
});
const scaleOf: ScaleOf = (ref) =>
  Promise.resolve(ref.uid === "u1" ? { uid: "u1", scale: 5 } : undefined);

Deno.test("budgetStatus() with an integer minAvailable counts the selected pods", async () => {
  const pods = [pod("a", true), pod("b", true), pod("c", false), {
    ...pod("d", true),
    metadata: { name: "d", labels: { app: "other" } },
  }];
  const s = await budgetStatus(pdb({ minAvailable: 1 }), pods, scaleOf, NOW);
  assert.equal(s.expectedPods, 3);
  assert.equal(s.desiredHealthy, 1);
  assert.equal(s.currentHealthy, 2);
  assert.equal(s.disruptionsAllowed, 1);
  assert.equal(s.observedGeneration, 3);
  const [cond] = s.conditions as Record<string, unknown>[];
  assert.equal(cond.type, "DisruptionAllowed");
  assert.equal(cond.status, "True");
  assert.equal(cond.reason, "SufficientPods");
});

Deno.test("budgetStatus() scales percentages and maxUnavailable by the controllers", async () => {
  const pods = ["a", "b", "c"].map((n) => pod(n, true, { ownerReferences: [owner] }));
  const max = await budgetStatus(pdb({ maxUnavailable: "50%" }), pods, scaleOf, NOW);
  assert.deepEqual([max.expectedPods, max.desiredHealthy, max.disruptionsAllowed], [5, 2, 1]);
  const min = await budgetStatus(pdb({ minAvailable: "50%" }), pods, scaleOf, NOW);
  assert.deepEqual([min.expectedPods, min.desiredHealthy, min.disruptionsAllowed], [5, 3, 0]);
  assert.equal((min.conditions as Record<string, unknown>[])[0].reason, "InsufficientPods");
});

Deno.test("budgetStatus() keeps recent disruptions and fails safe", async () => {
  const recent = new Date(NOW - 1000).toISOString().replace(/\.\d+Z$/, "Z");
  const old = new Date(NOW - DELETION_TIMEOUT_MS - 1000).toISOString().replace(/\.\d+Z$/, "Z");
  const pods = [pod("a", true), pod("b", true), pod("c", true)];
  const s = await budgetStatus(
    pdb({ minAvailable: 1 }, { disruptedPods: { a: recent, b: old, gone: recent } }),
    pods,
    scaleOf,
    NOW,
  );
  assert.deepEqual(s.disruptedPods, { a: recent });
  assert.equal(s.currentHealthy, 2);
  const orphan = { ...owner, uid: "nope" };
  const failed = await budgetStatus(
    pdb({ maxUnavailable: 1 }),
    [pod("x", true, { ownerReferences: [orphan] })],
    scaleOf,
    NOW,
  );
  assert.equal(failed.disruptionsAllowed, 0);
  const [cond] = failed.conditions as Record<string, unknown>[];
  assert.equal(cond.reason, "SyncFailed");
  assert.equal(cond.message, 'found no controllers for pod "x"');
});
