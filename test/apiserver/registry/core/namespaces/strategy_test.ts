import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import {
  NAMESPACE_FINALIZER,
  NAMESPACE_NAME_LABEL,
  namespaceKind,
} from "../../../../../apiserver/registry/core/namespaces/strategy.ts";
import { Store } from "../../../../../apiserver/registry/generic/store.ts";
import { withTempStorage } from "../../../../support/registry_harness.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";

const { strategy } = namespaceKind;
const ns = (rest: Record<string, unknown> = {}, name = "team"): KubeObject => ({
  metadata: { name },
  ...rest,
});
const finalizersOf = (obj: KubeObject) => (obj.spec as { finalizers: string[] }).finalizers;

Deno.test("namespaceKind.strategy.prepareForCreate() requires the kubernetes finalizer", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["no spec", {}, [NAMESPACE_FINALIZER]],
    ["empty finalizers", { spec: { finalizers: [] } }, [NAMESPACE_FINALIZER]],
    ["other finalizers get it appended", { spec: { finalizers: ["example.com/x"] } }, [
      "example.com/x",
      NAMESPACE_FINALIZER,
    ]],
    ["already there", { spec: { finalizers: [NAMESPACE_FINALIZER, "a/b"] } }, [
      NAMESPACE_FINALIZER,
      "a/b",
    ]],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => {
      const obj = ns(rest);
      strategy.prepareForCreate!(obj);
      assert.deepEqual(finalizersOf(obj), want);
    });
  }
  await t.step("the status is Active whatever the client sent", () => {
    const obj = ns({ status: { phase: "Terminating" } });
    strategy.prepareForCreate!(obj);
    assert.deepEqual(obj.status, { phase: "Active" });
  });
});

Deno.test("namespaceKind.strategy.prepareForUpdate() keeps spec.finalizers", () => {
  const obj = ns({ spec: { finalizers: [] } });
  strategy.prepareForUpdate!(obj, ns({ spec: { finalizers: [NAMESPACE_FINALIZER] } }));
  assert.deepEqual(finalizersOf(obj), [NAMESPACE_FINALIZER]);
});

Deno.test("namespaceKind.strategy.canonicalize() labels the namespace with its name", async (t) => {
  const cases: [string, Record<string, string> | undefined, Record<string, string>][] = [
    ["no labels", undefined, { [NAMESPACE_NAME_LABEL]: "team" }],
    ["other labels kept", { a: "b" }, { a: "b", [NAMESPACE_NAME_LABEL]: "team" }],
    ["a wrong value is corrected", { [NAMESPACE_NAME_LABEL]: "other" }, {
      [NAMESPACE_NAME_LABEL]: "team",
    }],
  ];
  for (const [name, labels, want] of cases) {
    await t.step(name, () => {
      const obj = ns();
      if (labels) obj.metadata.labels = labels;
      strategy.canonicalize!(obj);
      assert.deepEqual(obj.metadata.labels, want);
    });
  }
});

Deno.test("namespaceKind.strategy.validate() checks spec.finalizers", async (t) => {
  const cases: [string, unknown, string[]][] = [
    ["valid", [NAMESPACE_FINALIZER, "example.com/x"], []],
    ["empty string", [""], ["FieldValueInvalid spec.finalizers[0]"]],
    ["not a string", ["a", 1], ["FieldValueTypeInvalid spec.finalizers[1]"]],
  ];
  for (const [name, finalizers, want] of cases) {
    await t.step(name, () => {
      const e = validateLikeRequest(namespaceKind, ns({ spec: { finalizers } }));
      assert.deepEqual(e.map((x) => `${x.type} ${x.field}`), want);
    });
  }
});

Deno.test("namespaceKind.strategy deletion hooks follow spec.finalizers", async (t) => {
  await t.step("hasPendingFinalizers()", () => {
    assert.equal(
      strategy.hasPendingFinalizers!(ns({ spec: { finalizers: ["kubernetes"] } })),
      true,
    );
    assert.equal(strategy.hasPendingFinalizers!(ns({ spec: { finalizers: [] } })), false);
    assert.equal(strategy.hasPendingFinalizers!(ns()), false);
  });
  await t.step("prepareForDeletion() sets phase Terminating", () => {
    const obj = ns({ status: { phase: "Active", conditions: [] } });
    strategy.prepareForDeletion!(obj);
    assert.deepEqual(obj.status, { phase: "Terminating", conditions: [] });
  });
});

Deno.test("namespaceKind.strategy.selectableFields() exposes status.phase and name; selectors take status.phase", () => {
  assert.deepEqual(strategy.selectableFields!(ns({ status: { phase: "Active" } })), {
    "status.phase": "Active",
    name: "team",
  });
  // kube's field label conversion for Namespace takes status.phase (and metadata.name) only.
  assert.deepEqual([...strategy.selectableFieldNames!], ["status.phase"]);
});

Deno.test("namespaceKind's finalize subresource replaces spec.finalizers only", () => {
  const finalize = namespaceKind.subresources!.find((s) => s.name === "finalize")!;
  const old = ns({ spec: { finalizers: ["kubernetes", "a/b"] }, status: { phase: "Terminating" } });
  old.metadata.resourceVersion = "5";
  const next = finalize.update!(
    { metadata: { name: "team", labels: { x: "y" } }, spec: { finalizers: ["a/b"] } },
    old,
  );
  assert.deepEqual(finalizersOf(next), ["a/b"]);
  assert.equal(next.metadata.labels, undefined);
  assert.deepEqual(next.status, { phase: "Terminating" });
  assert.equal(next.metadata.resourceVersion, undefined);
});

Deno.test("namespaceKind through a Store keeps the label and the finalizer", async () => {
  await withTempStorage("namespace_strategy_", async ({ storage }) => {
    const store = new Store(namespaceKind, { storage });
    const created = await store.create("", {
      metadata: { generateName: "gen-" },
      spec: { finalizers: ["example.com/x"] },
    });
    assert.equal(created.metadata.labels?.[NAMESPACE_NAME_LABEL], created.metadata.name);
    assert.deepEqual(finalizersOf(created), ["example.com/x", NAMESPACE_FINALIZER]);
    const name = created.metadata.name!;
    const { object } = await store.update("", name, { metadata: { name, labels: { a: "b" } } });
    assert.deepEqual(object.metadata.labels, { a: "b", [NAMESPACE_NAME_LABEL]: name });
    assert.deepEqual(finalizersOf(object), ["example.com/x", NAMESPACE_FINALIZER]);
  });
});
