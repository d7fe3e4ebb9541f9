import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { csiDriverKind } from "../../../../../apiserver/registry/storage/csidrivers/strategy.ts";

const s = csiDriverKind.strategy;

Deno.test("csiDriverKind defaults the spec as Kubernetes 1.32 and keeps attachRequired", () => {
  const d: KubeObject = { metadata: { name: "csi.example.com" } };
  s.prepareForCreate!(d);
  assert.deepEqual(d.spec, {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: "ReadWriteOnceWithFSType",
    volumeLifecycleModes: ["Persistent"],
    requiresRepublish: false,
    seLinuxMount: false,
  });
  assert.deepEqual(s.validate(d), []);
  const next = structuredClone(d);
  (next.spec as Record<string, unknown>).attachRequired = false;
  assert.deepEqual(s.validateUpdate!(next, d).map((e) => e.field), ["spec.attachedRequired"]);
  assert.deepEqual(s.tableColumns!.cells(d, 0).slice(1, 7), [
    true,
    false,
    false,
    "<unset>",
    false,
    "Persistent",
  ]);
});
