import assert from "node:assert/strict";
import type { AdmissionAttributes } from "../../../../apiserver/registry/generic/admission.ts";
import type { KindDef } from "../../../../apiserver/registry/generic/kind.ts";
import {
  namespaceSelectorMatches,
  objectSelectorMatches,
  rulesMatch,
  selectorOf,
} from "../../../../apiserver/admission/webhook/webhook_matching.ts";

const kind = (group: string, plural: string): KindDef =>
  ({
    group,
    version: "v1",
    kind: plural,
    plural,
    singular: plural,
    namespaced: plural !== "namespaces",
    strategy: { validate: () => [] },
  }) as unknown as KindDef;

function attrs(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: "CREATE",
    kind: kind("", "pods"),
    namespace: "ns",
    name: "p",
    subresource: "",
    dryRun: false,
    ...over,
  };
}

const target = (a: AdmissionAttributes) => ({
  group: a.kind.group,
  version: a.kind.version,
  resource: a.kind.plural,
  subresource: a.subresource,
});

function rule(resources: string[], extra: Record<string, unknown> = {}) {
  return [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources, ...extra }];
}

Deno.test("rulesMatch() matches resources, subresources and wildcards as kube does", () => {
  const pod = attrs(), status = attrs({ subresource: "status" });
  const cases: [string[], AdmissionAttributes, boolean][] = [
    [["pods"], pod, true],
    [["pods"], status, false],
    [["pods/status"], status, true],
    [["pods/*"], status, true],
    [["pods/*"], pod, true],
    [["*"], pod, true],
    [["*"], status, false],
    [["*/status"], status, true],
    [["*/scale"], status, false],
    [["*/*"], status, true],
    [["services"], pod, false],
  ];
  for (const [resources, a, want] of cases) {
    assert.equal(rulesMatch(rule(resources), a, target(a)), want, `${resources} ${a.subresource}`);
  }
  const onlyCreate = [{ ...rule(["pods"])[0], operations: ["CREATE"] }];
  assert.equal(rulesMatch(onlyCreate, attrs({ operation: "UPDATE" }), target(pod)), false);
  const apps = [{ ...rule(["pods"])[0], apiGroups: ["apps"] }];
  assert.equal(rulesMatch(apps, pod, target(pod)), false);
});

Deno.test("rulesMatch() honours the scope; a Namespace is cluster-scoped", () => {
  const ns = attrs({ kind: kind("", "namespaces"), namespace: "", name: "x" });
  const node = attrs({ kind: kind("", "nodes"), namespace: "" });
  const pod = attrs();
  const scoped = (scope: string) => rule(["*"], { scope });
  assert.equal(rulesMatch(scoped("Namespaced"), pod, target(pod)), true);
  assert.equal(rulesMatch(scoped("Namespaced"), node, target(node)), false);
  assert.equal(rulesMatch(scoped("Namespaced"), ns, target(ns)), false);
  assert.equal(rulesMatch(scoped("Cluster"), ns, target(ns)), true);
  assert.equal(rulesMatch(scoped("Cluster"), pod, target(pod)), false);
  assert.equal(rulesMatch(scoped("*"), pod, target(pod)), true);
});

Deno.test("objectSelectorMatches() looks at the new and the old object", () => {
  const sel = selectorOf({ matchLabels: { a: "b" } });
  const obj = (labels: Record<string, string>) => ({ metadata: { labels } });
  assert.equal(objectSelectorMatches(sel, attrs({ object: obj({ a: "b" }) })), true);
  assert.equal(objectSelectorMatches(sel, attrs({ object: obj({}) })), false);
  assert.equal(
    objectSelectorMatches(sel, attrs({ object: obj({}), oldObject: obj({ a: "b" }) })),
    true,
  );
  assert.equal(objectSelectorMatches(selectorOf({}), attrs()), true);
});

Deno.test("namespaceSelectorMatches() reads the namespace, or a Namespace's own new labels", async () => {
  const sel = selectorOf({ matchExpressions: [{ key: "team", operator: "In", values: ["a"] }] });
  const known: Record<string, Record<string, string>> = { ns: { team: "a" }, other: {} };
  const labels = (name: string) => Promise.resolve(known[name]);
  assert.equal(await namespaceSelectorMatches(sel, attrs(), labels), true);
  assert.equal(await namespaceSelectorMatches(sel, attrs({ namespace: "other" }), labels), false);
  const node = attrs({ kind: kind("", "nodes"), namespace: "" });
  assert.equal(await namespaceSelectorMatches(sel, node, labels), true, "cluster-scoped");
  const created = attrs({
    kind: kind("", "namespaces"),
    namespace: "",
    name: "fresh",
    object: { metadata: { name: "fresh", labels: { team: "a" } } },
  });
  assert.equal(await namespaceSelectorMatches(sel, created, labels), true);
  await assert.rejects(() => namespaceSelectorMatches(sel, attrs({ namespace: "gone" }), labels));
});
