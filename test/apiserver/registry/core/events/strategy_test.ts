import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { eventKind } from "../../../../../apiserver/registry/core/events/strategy.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";

const { strategy } = eventKind;
const ev = (rest: Record<string, unknown>): KubeObject => ({
  metadata: { name: "e", namespace: "default" },
  ...rest,
});

Deno.test("eventKind.strategy.validate() checks the involved object and type", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["minimal", {}, []],
    ["Normal in the same namespace", {
      type: "Normal",
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
    }, []],
    ["Warning", { type: "Warning" }, []],
    ["unknown type", { type: "Info" }, ["FieldValueNotSupported type"]],
    ["involvedObject not an object", { involvedObject: "p" }, [
      "FieldValueTypeInvalid involvedObject",
    ]],
    ["involved object in another namespace", { involvedObject: { namespace: "other" } }, [
      "FieldValueInvalid involvedObject.namespace",
    ]],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(
        validateLikeRequest(eventKind, ev(rest)).map((e) => `${e.type} ${e.field}`),
        want,
      );
    });
  }
});

Deno.test("eventKind.strategy.selectableFields() exposes every declared field", async (t) => {
  await t.step("values", () => {
    const fields = strategy.selectableFields!(ev({
      involvedObject: { kind: "Pod", name: "p", namespace: "default", uid: "u", fieldPath: "f" },
      reason: "Started",
      reportingComponent: "agent",
      source: { component: "kubelet" },
      type: "Normal",
    }));
    assert.equal(fields["involvedObject.kind"], "Pod");
    assert.equal(fields["involvedObject.name"], "p");
    assert.equal(fields["involvedObject.uid"], "u");
    assert.equal(fields["involvedObject.fieldPath"], "f");
    assert.equal(fields["involvedObject.resourceVersion"], "");
    assert.equal(fields.reason, "Started");
    assert.equal(fields.reportingComponent, "agent");
    assert.equal(fields.source, "kubelet");
    assert.equal(fields.type, "Normal");
  });
  await t.step("names match the fields", () => {
    const fields = strategy.selectableFields!(ev({}));
    assert.deepEqual(Object.keys(fields).sort(), [...strategy.selectableFieldNames!].sort());
    assert.ok(Object.values(fields).every((v) => v === ""));
  });
});

Deno.test("eventKind allows create on update", () => {
  assert.equal(eventKind.allowCreateOnUpdate, true);
  assert.deepEqual(eventKind.shortNames, ["ev"]);
});
