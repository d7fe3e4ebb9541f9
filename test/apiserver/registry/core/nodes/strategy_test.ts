import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { nodeKind } from "../../../../../apiserver/registry/core/nodes/strategy.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";

const { strategy } = nodeKind;
const node = (spec?: unknown): KubeObject => ({
  metadata: { name: "n" },
  ...(spec === undefined ? {} : { spec }),
});

Deno.test("nodeKind.strategy.validate() checks taints (after the schema checked types)", async (t) => {
  const cases: [string, unknown, string[]][] = [
    ["no spec", undefined, []],
    ["empty spec", {}, []],
    ["spec not an object", "x", ["FieldValueTypeInvalid spec"]],
    ["valid taints", {
      taints: [
        { key: "a", effect: "NoSchedule" },
        { key: "b", value: "v", effect: "PreferNoSchedule" },
        { key: "c", effect: "NoExecute" },
      ],
    }, []],
    ["taints not a list", { taints: {} }, ["FieldValueTypeInvalid spec.taints"]],
    ["taint without a key", { taints: [{ effect: "NoSchedule" }] }, [
      "FieldValueRequired spec.taints[0].key",
    ]],
    ["unknown effect", { taints: [{ key: "a", effect: "Sometimes" }] }, [
      "FieldValueNotSupported spec.taints[0].effect",
    ]],
  ];
  for (const [name, spec, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(
        validateLikeRequest(nodeKind, node(spec)).map((e) => `${e.type} ${e.field}`),
        want,
      );
    });
  }
});

Deno.test("nodeKind.strategy.selectableFields() exposes spec.unschedulable", async (t) => {
  const cases: [string, unknown, string][] = [
    ["unset", undefined, "false"],
    ["true", { unschedulable: true }, "true"],
    ["false", { unschedulable: false }, "false"],
  ];
  for (const [name, spec, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(strategy.selectableFields!(node(spec)), { "spec.unschedulable": want });
    });
  }
  assert.deepEqual(strategy.selectableFieldNames, ["spec.unschedulable"]);
});

Deno.test("nodeKind is cluster scoped with status and proxy subresources", () => {
  assert.equal(nodeKind.namespaced, false);
  assert.deepEqual(nodeKind.subresources?.map((s) => s.name), ["status", "proxy"]);
});
