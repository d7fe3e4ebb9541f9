import assert from "node:assert/strict";
import { compareTyped } from "../../../apiserver/fieldmanager/compare_values.ts";
import type { FieldSet } from "../../../apiserver/fieldmanager/field_set.ts";
import { serializePathElement } from "../../../apiserver/fieldmanager/path_element.ts";
import { kindSchema } from "../../../apiserver/fieldmanager/schema_from_model.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";

const pod = kindSchema(builtinSchemaModel(), "", "v1", "Pod");

function paths(set: FieldSet): string[] {
  return set.paths().map((p) => p.map(serializePathElement).join("."));
}

const POD = {
  metadata: { name: "p", labels: { a: "1" } },
  spec: {
    containers: [
      { name: "c", image: "i", ports: [{ containerPort: 80, protocol: "TCP" }] },
      { name: "d" },
      { name: "d", image: "j" },
    ],
    nodeSelector: {},
  },
};

/** Every path a value absent on the left adds: leaves, maps, lists and their items. */
const ADDED = [
  "f:metadata",
  "f:spec",
  "f:metadata.f:labels",
  "f:metadata.f:name",
  "f:metadata.f:labels.f:a",
  "f:spec.f:containers",
  "f:spec.f:nodeSelector",
  'f:spec.f:containers.k:{"name":"c"}',
  'f:spec.f:containers.k:{"name":"d"}',
  'f:spec.f:containers.k:{"name":"c"}.f:image',
  'f:spec.f:containers.k:{"name":"c"}.f:name',
  'f:spec.f:containers.k:{"name":"c"}.f:ports',
  'f:spec.f:containers.k:{"name":"c"}.f:ports.k:{"containerPort":80,"protocol":"TCP"}',
  'f:spec.f:containers.k:{"name":"c"}.f:ports.k:{"containerPort":80,"protocol":"TCP"}.f:containerPort',
  'f:spec.f:containers.k:{"name":"c"}.f:ports.k:{"containerPort":80,"protocol":"TCP"}.f:protocol',
];

Deno.test("compareTyped() adds every path of fields absent on the left", async (t) => {
  const cases: Array<[string, unknown, unknown, string[]]> = [
    ["create from an empty object", {}, POD, ADDED],
    ["a new subtree next to an unchanged field", { metadata: POD.metadata }, POD, [
      "f:spec",
      ...ADDED.filter((p) => p.startsWith("f:spec.")),
    ]],
  ];
  for (const [name, lhs, rhs, added] of cases) {
    await t.step(name, () => {
      const c = compareTyped(pod.schema, pod.root, lhs, rhs);
      assert.deepEqual(paths(c.added), added);
      assert.deepEqual(paths(c.modified), []);
      assert.deepEqual(paths(c.removed), []);
    });
  }
});

Deno.test("compareTyped() reports an associative list item without its key as a TypedError", () => {
  const bad = { spec: { containers: [{ image: "x" }] } };
  assert.throws(() => compareTyped(pod.schema, pod.root, {}, bad), /name/);
});
