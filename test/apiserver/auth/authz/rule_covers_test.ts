import assert from "node:assert/strict";
import {
  compactRuleString,
  covers,
  uncoveredRules,
} from "../../../../apiserver/auth/authz/rule_covers.ts";
import type { PolicyRule } from "../../../../apiserver/auth/authz/rbac_types.ts";

const r = (verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule =>
  names ? { verbs, apiGroups: groups, resources, resourceNames: names } : {
    verbs,
    apiGroups: groups,
    resources,
  };

Deno.test("covers() decides whether owner rules hold every servant permission", async (t) => {
  const cases: [string, PolicyRule[], PolicyRule[], boolean][] = [
    ["star covers all", [r(["*"], ["*"], ["*"])], [r(["get", "delete"], ["apps"], ["x/y"])], true],
    ["exact", [r(["get", "list"], [""], ["pods"])], [r(["get"], [""], ["pods"])], true],
    ["missing verb", [r(["get"], [""], ["pods"])], [r(["get", "list"], [""], ["pods"])], false],
    [
      "servant star verb needs star",
      [r(["get"], [""], ["pods"])],
      [r(["*"], [""], ["pods"])],
      false,
    ],
    ["*/sub covers sub", [r(["get"], [""], ["*/log"])], [r(["get"], [""], ["pods/log"])], true],
    [
      "unrestricted covers names",
      [r(["get"], [""], ["cm"])],
      [r(["get"], [""], ["cm"], ["a"])],
      true,
    ],
    [
      "names do not cover all",
      [r(["get"], [""], ["cm"], ["a"])],
      [r(["get"], [""], ["cm"])],
      false,
    ],
    [
      "url prefix",
      [{ verbs: ["get"], nonResourceURLs: ["/logs/*"] }],
      [{ verbs: ["get"], nonResourceURLs: ["/logs/a"] }],
      true,
    ],
    [
      "url other",
      [{ verbs: ["get"], nonResourceURLs: ["/logs/*"] }],
      [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }],
      false,
    ],
    ["union of owner rules", [r(["get"], [""], ["pods"]), r(["list"], [""], ["pods"])], [
      r(["get", "list"], [""], ["pods"]),
    ], true],
  ];
  for (const [name, owner, servant, want] of cases) {
    await t.step(name, () => assert.equal(covers(owner, servant), want));
  }
});

Deno.test("uncoveredRules() compacts missing permissions in Kubernetes' text form", () => {
  const missing = uncoveredRules([r(["get"], [""], ["pods"])], [
    r(["get", "list", "watch"], [""], ["pods", "secrets"]),
  ]);
  assert.deepEqual(missing.map(compactRuleString), [
    `{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}`,
    `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`,
  ]);
});
