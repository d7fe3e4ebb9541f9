import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { podDisruptionBudgetKind } from "../../../../../apiserver/registry/policy/poddisruptionbudgets/strategy.ts";

const { strategy } = podDisruptionBudgetKind;
const pdb = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: "b", namespace: "d" },
  spec,
});
const errs = (spec: Record<string, unknown>) =>
  strategy.validate(pdb(spec)).map((e) => `${e.type} ${e.field}`);

Deno.test("podDisruptionBudgetKind.strategy.validate() as ValidatePodDisruptionBudgetSpec", () => {
  assert.deepEqual(errs({ minAvailable: 1, selector: { matchLabels: { a: "b" } } }), []);
  assert.deepEqual(errs({ maxUnavailable: "10%" }), []);
  assert.deepEqual(errs({ minAvailable: 1, maxUnavailable: 1 }), ["FieldValueInvalid spec"]);
  assert.deepEqual(errs({ minAvailable: -1 }), ["FieldValueInvalid spec.minAvailable"]);
  assert.deepEqual(errs({ maxUnavailable: "101%" }), ["FieldValueInvalid spec.maxUnavailable"]);
  assert.deepEqual(errs({ maxUnavailable: "ten" }), ["FieldValueInvalid spec.maxUnavailable"]);
  assert.deepEqual(errs({ unhealthyPodEvictionPolicy: "Never" }), [
    "FieldValueNotSupported spec.unhealthyPodEvictionPolicy",
  ]);
  assert.deepEqual(errs({ selector: { matchExpressions: [{ key: "a", operator: "In" }] } }), [
    "FieldValueRequired spec.selector.matchExpressions[0].values",
  ]);
});

Deno.test("podDisruptionBudgetKind: status starts at zero and must stay non-negative", () => {
  const obj = pdb({ minAvailable: 1 });
  strategy.prepareForCreate!(obj);
  assert.deepEqual(obj.status, {
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  });
  const bad = { ...obj, status: { ...obj.status as object, disruptionsAllowed: -1 } };
  assert.deepEqual(strategy.validateUpdate!(bad, obj).map((e) => e.field), [
    "status.disruptionsAllowed",
  ]);
});

Deno.test("podDisruptionBudgetKind.strategy.tableColumns prints N/A for an unset bound", () => {
  const obj = pdb({ maxUnavailable: "25%" });
  obj.status = { disruptionsAllowed: 2 };
  obj.metadata.creationTimestamp = "2026-01-01T00:00:00Z";
  const cells = strategy.tableColumns!.cells(obj, Date.parse("2026-01-01T00:01:00Z"));
  assert.deepEqual(cells, ["b", "N/A", "25%", 2, "60s"]);
});
