import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { runtimeClassKind } from "../../../../../apiserver/registry/node/runtimeclasses/strategy.ts";

const s = runtimeClassKind.strategy;

Deno.test("runtimeClassKind validates the handler, overhead and tolerations as Kubernetes", () => {
  const rc: KubeObject = {
    metadata: { name: "r" },
    handler: "Bad_Handler",
    overhead: { podFixed: { cpu: "nope" } },
    scheduling: {
      nodeSelector: { "bad key!": "v" },
      tolerations: [
        { key: "", operator: "Equal", value: "x" },
        { key: "k", operator: "Exists", effect: "NoSchedule" },
        { key: "k", operator: "Exists", effect: "NoSchedule" },
      ],
    },
  };
  assert.deepEqual(s.validate(rc).map((e) => `${e.type} ${e.field}`), [
    "FieldValueInvalid handler",
    "FieldValueInvalid overhead.limits[cpu]",
    "FieldValueInvalid scheduling.nodeSelector",
    "FieldValueInvalid scheduling.tolerations.tolerations[0].operator",
    "FieldValueDuplicate scheduling.tolerations[2]",
  ]);
  assert.deepEqual(s.validateUpdate!({ ...rc, handler: "b" }, rc).map((e) => e.detail), [
    "field is immutable",
  ]);
});
