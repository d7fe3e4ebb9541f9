import assert from "node:assert/strict";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import {
  applyStrategicMergePatch,
  StrategicMergePatchError,
} from "../../../shared/patch/strategic_merge_patch.ts";
import { type StrategicSchema, strategicSchemaOf } from "../../../shared/patch/strategic_schema.ts";

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
      // A new item goes ahead of live items that precede no patched item (Kubernetes'
      // mergeSortedSlice), so B comes before A.
      "nested merge lists merge by key",
      { spec: { containers: [{ name: "c1", env: [{ name: "B", value: "2" }] }] } },
      (o) => o.spec.containers[0].env,
      [{ name: "B", value: "2" }, { name: "A", value: "1" }],
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

// The list fields of apimachinery's strategic merge patch test type: `mergingList` merges objects
// by `name`, `mergingIntList` merges scalars.
const MERGE_ITEM: StrategicSchema = {
  field(name) {
    if (name === "mergingList") {
      return { strategies: ["merge"], mergeKey: "name", schema: MERGE_ITEM };
    }
    if (name === "mergingIntList") return { strategies: ["merge"] };
    return undefined;
  },
};

type Doc = Record<string, unknown>;
/** An item of `mergingList`. */
const n = (name: number | string, rest: Doc = {}): Doc => ({ name, ...rest });
/** `$setElementOrder/mergingList` naming `names`. */
const order = (...names: number[]): Doc => ({
  "$setElementOrder/mergingList": names.map((x) => ({ name: x })),
});
/** `$setElementOrder/mergingIntList`. */
const intOrder = (...values: number[]): Doc => ({ "$setElementOrder/mergingIntList": values });

Deno.test("applyStrategicMergePatch() orders lists as Kubernetes' setElementOrder cases say", async (t) => {
  // Transcribed from apimachinery's strategicpatch tests: [description, original (or current),
  // patch (two-way or three-way), result].
  const cases: [string, Doc, Doc, Doc][] = [
    [
      "add an item in a list of primitives and preserve order (three-way)",
      { mergingIntList: [1, 4, 2] },
      { ...intOrder(3, 1, 2), mergingIntList: [3] },
      { mergingIntList: [3, 1, 4, 2] },
    ],
    [
      "delete an item in a list of primitives and preserve order",
      { mergingIntList: [1, 2, 3] },
      { ...intOrder(2, 1), "$deleteFromPrimitiveList/mergingIntList": [3] },
      { mergingIntList: [2, 1] },
    ],
    [
      "add an item in a list and preserve order (two-way)",
      { mergingList: [n(1), n(2, { value: 2 })] },
      { ...order(3, 1, 2), mergingList: [n(3, { value: 3 })] },
      { mergingList: [n(3, { value: 3 }), n(1), n(2, { value: 2 })] },
    ],
    [
      "add an item in a list and preserve order (three-way)",
      { mergingList: [n(1, { other: "a" }), n(2, { value: 2, other: "b" })] },
      { ...order(3, 1, 2), mergingList: [n(3, { value: 3 })] },
      {
        mergingList: [n(3, { value: 3 }), n(1, { other: "a" }), n(2, { value: 2, other: "b" })],
      },
    ],
    [
      "add multiple items in a list and preserve order",
      { mergingList: [n(1, { other: "a" }), n(2, { value: 2, other: "b" })] },
      { ...order(1, 4, 2, 3), mergingList: [n(4, { value: 4 }), n(3, { value: 3 })] },
      {
        mergingList: [
          n(1, { other: "a" }),
          n(4, { value: 4 }),
          n(2, { value: 2, other: "b" }),
          n(3, { value: 3 }),
        ],
      },
    ],
    [
      "delete an item in a list and preserve order",
      { mergingList: [n(1, { other: "a" }), n(2, { value: 2, other: "b" }), n(3, { value: 3 })] },
      { ...order(2, 1), mergingList: [n(3, { $patch: "delete" })] },
      { mergingList: [n(2, { value: 2, other: "b" }), n(1, { other: "a" })] },
    ],
    [
      "change an item in a list and preserve order",
      { mergingList: [n(1, { other: "a" }), n(2, { value: 2, other: "b" }), n(3, { value: 3 })] },
      { ...order(2, 3, 1), mergingList: [n(3, { value: "x" })] },
      {
        mergingList: [n(2, { value: 2, other: "b" }), n(3, { value: "x" }), n(1, { other: "a" })],
      },
    ],
    [
      "add and delete an item in a list and preserve order",
      { mergingList: [n(1, { other: "a" }), n(2, { value: 2, other: "b" }), n(3, { value: 3 })] },
      { ...order(4, 2, 1), mergingList: [n(4, { value: 4 }), n(3, { $patch: "delete" })] },
      {
        mergingList: [n(4, { value: 4 }), n(2, { value: 2, other: "b" }), n(1, { other: "a" })],
      },
    ],
    [
      "set elements order in a list with server-only items",
      {
        mergingList: [
          n(1, { other: "a" }),
          n(3, { value: 3 }),
          n(4, { value: 4 }),
          n(2, { value: 2 }),
          n(9),
        ],
      },
      order(4, 2, 3, 1),
      {
        mergingList: [
          n(4, { value: 4 }),
          n(2, { value: 2 }),
          n(3, { value: 3 }),
          n(1, { other: "a" }),
          n(9),
        ],
      },
    ],
    [
      "set elements order in a list with server-only items 2",
      {
        mergingList: [
          n(1, { other: "a" }),
          n(2, { value: 2 }),
          n(9),
          n(3, { value: 3 }),
          n(4, { value: 4 }),
        ],
      },
      order(2, 1, 4, 3),
      {
        mergingList: [
          n(2, { value: 2 }),
          n(1, { other: "a" }),
          n(9),
          n(4, { value: 4 }),
          n(3, { value: 3 }),
        ],
      },
    ],
    [
      "set elements order in a list with server-only items 3",
      {
        mergingList: [
          n(1, { other: "a" }),
          n(2, { value: 2 }),
          n(7),
          n(9),
          n(8),
          n(3, { value: 3 }),
          n(4, { value: 4 }),
        ],
      },
      order(2, 1, 4, 3),
      {
        mergingList: [
          n(2, { value: 2 }),
          n(1, { other: "a" }),
          n(7),
          n(9),
          n(8),
          n(4, { value: 4 }),
          n(3, { value: 3 }),
        ],
      },
    ],
    [
      "set elements order in a int list with server-only items",
      { mergingIntList: [1, 3, 4, 2, 9] },
      intOrder(4, 2, 3, 1),
      { mergingIntList: [4, 2, 3, 1, 9] },
    ],
    [
      "set elements order in a int list with server-only items 2",
      { mergingIntList: [1, 2, 9, 3, 4] },
      intOrder(2, 1, 4, 3),
      { mergingIntList: [2, 1, 9, 4, 3] },
    ],
    [
      "set elements order in a int list with server-only items 3",
      { mergingIntList: [1, 2, 7, 9, 8, 3, 4] },
      intOrder(2, 1, 4, 3),
      { mergingIntList: [2, 1, 7, 9, 8, 4, 3] },
    ],
    [
      "add and delete an item in a int list and preserve order",
      { mergingIntList: [1, 2, 3] },
      {
        ...intOrder(4, 2, 1),
        mergingIntList: [4],
        "$deleteFromPrimitiveList/mergingIntList": [3],
      },
      { mergingIntList: [4, 2, 1] },
    ],
    [
      "behavior of set element order for a merging list with duplicate",
      { mergingList: [n(1), n(2, { value: "dup1" }), n(3), n(2, { value: "dup2" }), n(4)] },
      order(2, 1, 4, 3, 2),
      { mergingList: [n(2, { value: "dup1" }), n(2, { value: "dup2" }), n(1), n(4), n(3)] },
    ],
    [
      "behavior of set element order for a merging int list with duplicate",
      { mergingIntList: [1, 2, 3, 2, 4] },
      intOrder(2, 1, 4, 3, 2),
      { mergingIntList: [2, 2, 1, 4, 3] },
    ],
    [
      "add field to map in merging list with conflict",
      { mergingList: [n(1, { other: "a" }), n(3, { value: 2, other: "b" })] },
      { ...order(1, 2), mergingList: [n(1, { value: 1 }), n(2, { value: 2 })] },
      {
        mergingList: [
          n(1, { value: 1, other: "a" }),
          n(2, { value: 2 }),
          n(3, { value: 2, other: "b" }),
        ],
      },
    ],
    [
      "merge lists of maps (three-way)",
      { mergingList: [n(1, { other: "a" }), n(2, { value: 2, other: "b" })] },
      { ...order(4, 1, 2, 3), mergingList: [n(4, { value: 4 }), n(3, { value: 3 })] },
      {
        mergingList: [
          n(4, { value: 4 }),
          n(1, { other: "a" }),
          n(2, { value: 2, other: "b" }),
          n(3, { value: 3 }),
        ],
      },
    ],
    [
      "$setElementOrder contains item that is not present in the list to be merged",
      { mergingList: [n(1), n(3)] },
      { ...order(3, 2, 1), mergingList: [n(3, { value: 3 }), n(1, { value: 1 })] },
      { mergingList: [n(3, { value: 3 }), n(1, { value: 1 })] },
    ],
    [
      "$setElementOrder contains item that is not present in the int list to be merged",
      { mergingIntList: [1, 3] },
      intOrder(3, 2, 1),
      { mergingIntList: [3, 1] },
    ],
    [
      "nested patch merge with empty list (three-way)",
      { name: "hi", mergingList: [n("hello2")] },
      {
        "$setElementOrder/mergingList": [{ name: "hello" }, { name: "doesntexist" }],
        mergingList: [n("hello")],
      },
      { name: "hi", mergingList: [n("hello"), n("hello2")] },
    ],
    [
      "nested patch merge with empty list (two-way)",
      { name: "hi" },
      { mergingList: [n("hello"), n("doesntexist", { $patch: "delete" })] },
      { name: "hi", mergingList: [n("hello")] },
    ],
  ];
  for (const [name, original, patch, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(applyStrategicMergePatch(original, patch, MERGE_ITEM), want);
    });
  }
});

Deno.test("applyStrategicMergePatch() rejects a patch list out of its $setElementOrder", async (t) => {
  const cases: [string, Doc, Doc][] = [
    [
      "list of maps",
      { mergingList: [n(1), n(3), n(2)] },
      { ...order(1, 2, 3), mergingList: [n(3, { value: 3 }), n(1, { value: 1 })] },
    ],
    [
      "list of scalars",
      { mergingIntList: [1, 3, 2] },
      { ...intOrder(1, 2, 3), mergingIntList: [3, 1] },
    ],
  ];
  for (const [name, original, patch] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => applyStrategicMergePatch(original, patch, MERGE_ITEM),
        (err: unknown) =>
          err instanceof StrategicMergePatchError && /doesn't match/.test(err.message),
      );
    });
  }
});
