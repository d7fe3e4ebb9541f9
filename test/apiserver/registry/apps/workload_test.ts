import assert from "node:assert/strict";
import {
  formatLabels,
  formatSelector,
  validateSelector,
} from "../../../../apiserver/registry/apps/workload.ts";
import { scaleOf } from "../../../../apiserver/registry/apps/scale.ts";

Deno.test("formatSelector() prints selectors as kubectl does", () => {
  assert.equal(formatSelector(undefined), "<none>");
  assert.equal(formatSelector({}), "<none>");
  assert.equal(
    formatSelector({
      matchLabels: { b: "2", a: "1" },
      matchExpressions: [{ key: "c", operator: "In", values: ["y", "x"] }],
    }),
    "a=1,b=2,c in (x,y)",
  );
  assert.equal(formatLabels({ z: "1", a: "2" }), "a=2,z=1");
  assert.equal(formatLabels(undefined), "<none>");
});

Deno.test("validateSelector() requires a selector matching the template", () => {
  const template = { metadata: { labels: { app: "x" } } };
  assert.deepEqual(validateSelector({ template }, "deployment").map((e) => e.field), [
    "spec.selector",
  ]);
  assert.deepEqual(
    validateSelector({ selector: {}, template }, "deployment").map((e) => e.detail),
    ["empty selector is invalid for deployment"],
  );
  assert.deepEqual(
    validateSelector({ selector: { matchLabels: { app: "y" } }, template }, "deployment")
      .map((e) => `${e.field}: ${e.detail}`),
    ["spec.template.metadata.labels: `selector` does not match template `labels`"],
  );
  assert.deepEqual(
    validateSelector({ selector: { matchLabels: { app: "x" } }, template }, "x"),
    [],
  );
});

Deno.test("scaleOf() renders a workload as autoscaling/v1 Scale", () => {
  const scale = scaleOf({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns", uid: "u", resourceVersion: "7", generation: 2 },
    spec: { replicas: 3, selector: { matchLabels: { app: "web" } } },
    status: { replicas: 2 },
  });
  assert.deepEqual(scale, {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: "web",
      namespace: "ns",
      uid: "u",
      resourceVersion: "7",
      creationTimestamp: undefined,
    },
    spec: { replicas: 3 },
    status: { replicas: 2, selector: "app=web" },
  });
});
