import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { storageClassKind } from "../../../../../apiserver/registry/storage/storageclasses/strategy.ts";

const s = storageClassKind.strategy;

Deno.test("storageClassKind defaults, marks the default class and forbids changing the provisioner", () => {
  const sc: KubeObject = {
    metadata: {
      name: "fast",
      annotations: { "storageclass.beta.kubernetes.io/is-default-class": "true" },
    },
    provisioner: "example.com/fast",
  };
  s.prepareForCreate!(sc);
  assert.deepEqual([sc.reclaimPolicy, sc.volumeBindingMode], ["Delete", "Immediate"]);
  assert.deepEqual(s.validate(sc), []);
  assert.deepEqual(s.tableColumns!.cells(sc, 0).slice(0, 5), [
    "fast (default)",
    "example.com/fast",
    "Delete",
    "Immediate",
    false,
  ]);
  const next = { ...sc, provisioner: "other", reclaimPolicy: "Retain" };
  assert.deepEqual(s.validateUpdate!(next, sc).map((e) => `${e.type} ${e.field}`), [
    "FieldValueForbidden provisioner",
    "FieldValueForbidden reclaimPolicy",
  ]);
});
