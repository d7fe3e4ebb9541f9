import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { priorityClassKind } from "../../../../../apiserver/registry/scheduling/priorityclasses/strategy.ts";

const s = priorityClassKind.strategy;
const pc = (name: string, value: number, globalDefault = false): KubeObject => ({
  metadata: { name },
  value,
  globalDefault,
});

Deno.test("priorityClassKind reserves system- names and the values above 1000000000", () => {
  assert.deepEqual(s.validate(pc("system-cluster-critical", 2000000000)), []);
  assert.equal(
    s.validate(pc("system-node-critical", 1))[0].detail,
    "priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
  );
  assert.match(
    s.validate(pc("system-node-critical", 2000001000, true))[0].detail,
    /globalDefault of system-node-critical PriorityClass must be false/,
  );
  assert.deepEqual(s.validate(pc("user", 1000000001)).map((e) => e.field), ["value"]);
  assert.deepEqual(s.validate(pc("user", 1000000000)), []);
});

Deno.test("priorityClassKind defaults preemptionPolicy and refuses deleting system classes", () => {
  const o = pc("x", 5);
  s.prepareForCreate!(o);
  assert.equal(o.preemptionPolicy, "PreemptLowerPriority");
  assert.deepEqual(s.validateUpdate!({ ...o, value: 6 }, o).map((e) => e.type), [
    "FieldValueForbidden",
  ]);
  assert.equal(s.deleteForbidden!("x"), undefined);
  assert.equal(
    s.deleteForbidden!("system-node-critical"),
    "this is a system priority class and cannot be deleted",
  );
});
