import assert from "node:assert/strict";
import type { CustomResourceDefinition } from "../../../../../shared/api/apiextensions/v1/types.ts";
import {
  calculateNames,
  usedNames,
} from "../../../../../apiserver/registry/apiextensions/customresources/crd_names.ts";

function crd(plural: string, kind: string, shortNames: string[] = []): CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural, kind, shortNames },
      versions: [{ name: "v1", served: true, storage: true }],
    },
  };
}

function accepted(c: CustomResourceDefinition): CustomResourceDefinition {
  const r = calculateNames(c, { resources: new Set(), kinds: new Set() });
  return { ...c, status: { acceptedNames: r.acceptedNames } };
}

const NONE = { resources: new Set<string>(), kinds: new Set<string>() };

Deno.test("calculateNames() accepts names nobody uses, with the defaults", () => {
  const r = calculateNames(crd("widgets", "Widget", ["wd"]), NONE);
  assert.deepEqual(r.acceptedNames, {
    plural: "widgets",
    singular: "widget",
    kind: "Widget",
    listKind: "WidgetList",
    shortNames: ["wd"],
  });
  assert.deepEqual(r.namesAccepted, {
    type: "NamesAccepted",
    status: "True",
    reason: "NoConflicts",
    message: "no conflicts found",
  });
  assert.equal(r.established.status, "True");
  assert.equal(r.established.reason, "InitialNamesAccepted");
});

Deno.test("calculateNames() reports conflicts with other definitions and built-in resources", () => {
  const other = accepted(crd("gadgets", "Gadget", ["gd"]));
  const used = usedNames("example.com", "widgets.example.com", [other], NONE);
  const short = calculateNames(crd("widgets", "Widget", ["gd"]), used);
  assert.equal(short.namesAccepted.reason, "ShortNamesConflict");
  assert.equal(short.namesAccepted.message, '"gd" is already in use');
  assert.equal(short.established.reason, "NotAccepted");
  assert.equal(short.acceptedNames.plural, "widgets", "names without conflict are accepted");
  const plural = calculateNames(crd("gadgets", "Widget"), used);
  assert.equal(plural.namesAccepted.reason, "PluralConflict");
  const builtin = { resources: new Set(["pods", "pod", "po"]), kinds: new Set(["Pod"]) };
  const kind = calculateNames(crd("pods2", "Pod"), builtin);
  assert.equal(kind.namesAccepted.reason, "KindConflict");
  assert.equal(kind.namesAccepted.message, '"Pod" is already in use');
});

Deno.test("calculateNames() keeps Established once it was True", () => {
  const c = crd("widgets", "Widget");
  c.status = {
    conditions: [{ type: "Established", status: "True", reason: "InitialNamesAccepted" }],
  };
  const r = calculateNames(c, { resources: new Set(["widgets"]), kinds: new Set() });
  assert.equal(r.namesAccepted.status, "False");
  assert.equal(r.established.status, "True");
});
