import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import {
  semanticEqual,
  specDiff,
  validatePodSpecUpdate,
} from "../../../../../apiserver/registry/core/pods/pod_update.ts";

const pod = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "img:1" }], ...spec },
});
const errs = (next: KubeObject, old: KubeObject) =>
  validatePodSpecUpdate(next, old).map((e) => `${e.type} ${e.field}`);

Deno.test("semanticEqual() counts Go zero values as absent", () => {
  assert.ok(semanticEqual({ a: "", b: [], c: {}, d: false, e: 0, f: null }, {}));
  assert.ok(semanticEqual({ a: { b: {} } }, undefined));
  assert.ok(!semanticEqual({ a: "x" }, {}));
  assert.ok(!semanticEqual([1], [2]));
});

Deno.test("validatePodSpecUpdate() allows only kube's updatable fields", async (t) => {
  const old = pod({ tolerations: [{ key: "k", operator: "Exists" }], activeDeadlineSeconds: 50 });
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["unchanged", {}, []],
    ["image", { containers: [{ name: "c", image: "img:2" }] }, []],
    ["added toleration", {
      tolerations: [{ key: "k", operator: "Exists" }, { key: "x", operator: "Exists" }],
    }, []],
    ["lower deadline", { activeDeadlineSeconds: 10 }, []],
    ["nodeName", { nodeName: "n" }, ["FieldValueForbidden spec"]],
    ["command", { containers: [{ name: "c", image: "img:1", command: ["x"] }] }, [
      "FieldValueForbidden spec",
    ]],
    ["more containers", {
      containers: [{ name: "c", image: "img:1" }, { name: "d", image: "img:1" }],
    }, ["FieldValueForbidden spec.containers"]],
    ["empty image", { containers: [{ name: "c", image: "" }] }, [
      "FieldValueRequired spec.containers[0].image",
    ]],
    ["removed toleration", { tolerations: [] }, ["FieldValueForbidden spec.tolerations"]],
    ["higher deadline", { activeDeadlineSeconds: 60 }, [
      "FieldValueInvalid spec.activeDeadlineSeconds",
    ]],
    ["new scheduling gate", { schedulingGates: [{ name: "g" }] }, [
      "FieldValueForbidden spec.schedulingGates[0].name",
    ]],
  ];
  for (const [name, change, want] of cases) {
    await t.step(name, () => {
      const next = pod({ ...(old.spec as Record<string, unknown>), ...change });
      assert.deepEqual(errs(next, old), want);
    });
  }
  await t.step("a negative grace period may become 1", () => {
    const neg = pod({ terminationGracePeriodSeconds: -1 });
    assert.deepEqual(errs(pod({ terminationGracePeriodSeconds: 1 }), neg), []);
    assert.deepEqual(errs(pod({ terminationGracePeriodSeconds: 2 }), neg), [
      "FieldValueForbidden spec",
    ]);
  });
  await t.step("the message lists the updatable fields and a diff", () => {
    const [e] = validatePodSpecUpdate(pod({ nodeName: "n" }), pod({}));
    assert.ok(
      e.detail.startsWith(
        "pod updates may not change fields other than `spec.containers[*].image`," +
          "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` " +
          "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` " +
          "(allow it to be set to 1 if it was previously negative)\n",
      ),
    );
    assert.match(e.detail, /- \tNodeName: nil,\n\+ \tNodeName: "n",/);
  });
});

Deno.test("specDiff() names changed fields and counts the identical ones", () => {
  assert.equal(
    specDiff({ a: 1, b: "x" }, { a: 1, b: "y" }),
    '  core.PodSpec{\n- \tB: "x",\n+ \tB: "y",\n  \t... // 1 identical fields\n  }\n',
  );
});
