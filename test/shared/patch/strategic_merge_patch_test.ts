import assert from "node:assert/strict";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import {
  applyStrategicMergePatch,
  StrategicMergePatchError,
} from "../../../shared/patch/strategic_merge_patch.ts";
import { strategicSchemaOf } from "../../../shared/patch/strategic_schema.ts";

const model = builtinSchemaModel();
const POD = strategicSchemaOf(model, model.kind("", "v1", "Pod")!.name);

const base = {
  metadata: { name: "p", labels: { a: "1", b: "2" }, finalizers: ["x", "y"] },
  spec: {
    containers: [
      { name: "c1", image: "i1", env: [{ name: "A", value: "1" }] },
      { name: "c2", image: "i2" },
    ],
    volumes: [{ name: "v", emptyDir: {} }],
    tolerations: [{ key: "t1" }],
  },
};

Deno.test("applyStrategicMergePatch() merges and replaces per the schema markers", async (t) => {
  const cases: [string, Record<string, unknown>, (out: typeof base) => unknown, unknown][] = [
    [
      "maps merge, null deletes",
      { metadata: { labels: { a: null, c: "3" } } },
      (o) => o.metadata.labels,
      { b: "2", c: "3" },
    ],
    [
      "merge lists merge by key",
      { spec: { containers: [{ name: "c2", image: "new" }, { name: "c3", image: "i3" }] } },
      (o) => o.spec.containers.map((c) => `${c.name}=${c.image}`),
      ["c1=i1", "c2=new", "c3=i3"],
    ],
    [
      "nested merge lists merge by key",
      { spec: { containers: [{ name: "c1", env: [{ name: "B", value: "2" }] }] } },
      (o) => o.spec.containers[0].env,
      [{ name: "A", value: "1" }, { name: "B", value: "2" }],
    ],
    [
      "atomic lists are replaced",
      { spec: { tolerations: [{ key: "t2" }] } },
      (o) => o.spec.tolerations,
      [{ key: "t2" }],
    ],
    [
      "$patch: delete removes a list item",
      { spec: { containers: [{ name: "c1", $patch: "delete" }] } },
      (o) => o.spec.containers.map((c) => c.name),
      ["c2"],
    ],
    [
      "$patch: replace in a list replaces it",
      { spec: { containers: [{ name: "c9", image: "i9" }, { $patch: "replace" }] } },
      (o) => o.spec.containers,
      [{ name: "c9", image: "i9" }],
    ],
    [
      "$patch: replace in a map replaces it",
      { metadata: { labels: { z: "9", $patch: "replace" } } },
      (o) => o.metadata.labels,
      { z: "9" },
    ],
    [
      "primitive merge lists are a union",
      { metadata: { finalizers: ["y", "z"] } },
      (o) => o.metadata.finalizers,
      ["x", "y", "z"],
    ],
    [
      "$deleteFromPrimitiveList removes values",
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["x"] } },
      (o) => o.metadata.finalizers,
      ["y"],
    ],
    [
      "$setElementOrder orders the merged list",
      {
        spec: {
          "$setElementOrder/containers": [{ name: "c2" }, { name: "c1" }],
          containers: [{ name: "c1", image: "n" }],
        },
      },
      (o) => o.spec.containers.map((c) => c.name),
      ["c2", "c1"],
    ],
    [
      "$retainKeys drops other keys",
      {
        spec: {
          volumes: [{ name: "v", hostPath: { path: "/x" }, $retainKeys: ["name", "hostPath"] }],
        },
      },
      (o) => o.spec.volumes,
      [{ name: "v", hostPath: { path: "/x" } }],
    ],
  ];
  for (const [name, patch, pick, want] of cases) {
    await t.step(name, () => {
      const out = applyStrategicMergePatch(base, patch, POD) as unknown as typeof base;
      assert.deepEqual(pick(out), want);
    });
  }
  assert.equal(base.spec.containers.length, 2, "the original is not modified");
});

Deno.test("applyStrategicMergePatch() rejects bad directives", async (t) => {
  const bad: [string, Record<string, unknown>][] = [
    ["unknown $patch", { metadata: { $patch: "explode" } }],
    ["missing merge key", { spec: { containers: [{ image: "x" }] } }],
    ["unknown directive", { metadata: { $foo: 1 } }],
    ["field outside $retainKeys", {
      spec: { volumes: [{ name: "v", nfs: {}, $retainKeys: ["name"] }] },
    }],
  ];
  for (const [name, patch] of bad) {
    await t.step(name, () => {
      assert.throws(() => applyStrategicMergePatch(base, patch, POD), StrategicMergePatchError);
    });
  }
});
