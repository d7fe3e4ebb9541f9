import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type {
  AdmissionAttributes,
  AdmissionPlugin,
} from "../../../apiserver/registry/generic/admission.ts";
import { attrs } from "../../support/admission_attrs.ts";
import { defaultTolerationSeconds } from "../../../apiserver/admission/default_toleration_seconds.ts";
import { taintNodesByCondition } from "../../../apiserver/admission/taint_nodes_by_condition.ts";
import { storageObjectInUseProtection } from "../../../apiserver/admission/storage_object_in_use_protection.ts";
import { alwaysDeny } from "../../../apiserver/admission/always.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";

async function admit(p: AdmissionPlugin, a: AdmissionAttributes): Promise<void> {
  await p.admit?.(a);
  await p.validate?.(a);
}

Deno.test("defaultTolerationSeconds() adds the 300 s not-ready and unreachable tolerations", async () => {
  const pod = { metadata: { name: "p" }, spec: { containers: [] } } as KubeObject;
  await admit(defaultTolerationSeconds(), attrs("pods", "CREATE", pod));
  assert.deepEqual((pod.spec as { tolerations: unknown[] }).tolerations, [
    {
      key: "node.kubernetes.io/not-ready",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 300,
    },
    {
      key: "node.kubernetes.io/unreachable",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 300,
    },
  ]);
  // A toleration of every key (empty key, any effect) covers both.
  const all = {
    metadata: { name: "q" },
    spec: { tolerations: [{ operator: "Exists" }] },
  } as KubeObject;
  await admit(defaultTolerationSeconds(), attrs("pods", "CREATE", all));
  assert.deepEqual((all.spec as { tolerations: unknown[] }).tolerations, [{ operator: "Exists" }]);
  const own = {
    metadata: { name: "r" },
    spec: {
      tolerations: [{
        key: "node.kubernetes.io/unreachable",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 5,
      }],
    },
  } as KubeObject;
  await admit(defaultTolerationSeconds(), attrs("pods", "CREATE", own));
  const tolerations =
    (own.spec as { tolerations: { key: string; tolerationSeconds: number }[] }).tolerations;
  assert.deepEqual(tolerations.map((t) => [t.key, t.tolerationSeconds]), [
    ["node.kubernetes.io/unreachable", 5],
    ["node.kubernetes.io/not-ready", 300],
  ]);
});

Deno.test("taintNodesByCondition() taints new nodes not-ready:NoSchedule once", async () => {
  const node = { metadata: { name: "n" } } as KubeObject;
  await admit(taintNodesByCondition(), attrs("nodes", "CREATE", node));
  assert.deepEqual(node.spec, {
    taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }],
  });
  await admit(taintNodesByCondition(), attrs("nodes", "CREATE", node));
  assert.equal((node.spec as { taints: unknown[] }).taints.length, 1);
  const updated = { metadata: { name: "n" }, spec: {} } as KubeObject;
  await admit(taintNodesByCondition(), attrs("nodes", "UPDATE", updated));
  assert.deepEqual(updated.spec, {});
});

Deno.test("storageObjectInUseProtection() adds the pvc and pv protection finalizers", async () => {
  const pvc = { metadata: { name: "c", finalizers: ["x"] } } as KubeObject;
  await admit(storageObjectInUseProtection(), attrs("persistentvolumeclaims", "CREATE", pvc));
  assert.deepEqual(pvc.metadata.finalizers, ["x", "kubernetes.io/pvc-protection"]);
  const pv = { metadata: { name: "v" } } as KubeObject;
  await admit(storageObjectInUseProtection(), attrs("persistentvolumes", "CREATE", pv));
  assert.deepEqual(pv.metadata.finalizers, ["kubernetes.io/pv-protection"]);
  const cm = { metadata: { name: "m" } } as KubeObject;
  await admit(storageObjectInUseProtection(), attrs("configmaps", "CREATE", cm));
  assert.equal(cm.metadata.finalizers, undefined);
});

Deno.test("alwaysDeny() refuses every request with kube's message", async () => {
  await assert.rejects(
    () => admit(alwaysDeny(), attrs("configmaps", "CREATE", { metadata: { name: "m" } })),
    (err: unknown) =>
      err instanceof StatusError && err.code === 403 &&
      err.message === 'configmaps "m" is forbidden: admission control is denying all modifications',
  );
});
