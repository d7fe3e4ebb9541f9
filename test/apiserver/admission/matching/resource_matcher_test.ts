import assert from "node:assert/strict";
import {
  convertObject,
  EquivalentResources,
  matchRequestOf,
} from "../../../../apiserver/admission/matching/match_request.ts";
import { admissionRequestOf } from "../../../../apiserver/admission/admission_request.ts";
import { ResourceMatcher } from "../../../../apiserver/admission/matching/resource_matcher.ts";
import {
  isExemptAdmissionConfigurationResource,
  ruleMatches,
} from "../../../../apiserver/admission/matching/rules.ts";
import type { AdmissionAttributes } from "../../../../apiserver/registry/generic/admission.ts";
import type { KindDef } from "../../../../apiserver/registry/generic/kind.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";

function kind(group: string, version: string, k: string, plural: string, ns = true): KindDef {
  return {
    group,
    version,
    kind: k,
    plural,
    singular: k.toLowerCase(),
    namespaced: ns,
    subresources: [{ name: "status", verbs: ["get", "update", "patch"] }],
    strategy: { validate: () => [] },
  } as KindDef;
}

const pods = kind("", "v1", "Pod", "pods");
const namespaces = kind("", "v1", "Namespace", "namespaces", false);
const nodes = kind("", "v1", "Node", "nodes", false);
const hpaV2 = kind("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers");
const hpaV1: KindDef = {
  ...kind("autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers"),
  servedFrom: {
    storage: hpaV2,
    toStorage: (o) => ({ ...o, spec: { v2: true } }),
    fromStorage: (o) => ({ ...o, spec: { v1: true } }),
  },
};
const equivalents = new EquivalentResources(() => [pods, namespaces, nodes, hpaV2, hpaV1]);

function obj(name: string, labels: Record<string, string> = {}, namespace?: string): KubeObject {
  return { metadata: { name, labels, ...(namespace ? { namespace } : {}) } };
}

function attrs(def: KindDef, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: "CREATE",
    kind: def,
    namespace: def.namespaced ? "team" : "",
    name: "x",
    subresource: "",
    object: obj("x", { app: "web" }),
    dryRun: false,
    ...over,
  };
}

const nsLabels: Record<string, Record<string, string>> = { team: { env: "prod" } };
let lookups = 0;
const deps = {
  namespaceLabels: (n: string) => {
    lookups++;
    return nsLabels[n];
  },
  equivalents,
};

const podRule = {
  operations: ["CREATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["pods"],
};

Deno.test("ruleMatches() does resources, subresources, wildcards and scope as Kubernetes", () => {
  const req = (resource: string, subresource = "", namespace = "ns") => ({
    operation: "UPDATE",
    resource: { group: "", version: "v1", resource },
    subresource,
    namespace,
  });
  const r = (resources: string[], scope?: string) => ({
    operations: ["*"],
    apiGroups: ["*"],
    apiVersions: ["*"],
    resources,
    scope,
  });
  assert.equal(ruleMatches(r(["*"]), req("pods")), true);
  assert.equal(ruleMatches(r(["*"]), req("pods", "status")), false);
  assert.equal(ruleMatches(r(["*/*"]), req("pods", "status")), true);
  assert.equal(ruleMatches(r(["pods/*"]), req("pods")), true);
  assert.equal(ruleMatches(r(["pods/*"]), req("pods", "log")), true);
  assert.equal(ruleMatches(r(["*/status"]), req("nodes", "status")), true);
  assert.equal(ruleMatches(r(["*/status"]), req("nodes")), false);
  assert.equal(ruleMatches(r(["pods/status"]), req("pods", "status")), true);
  assert.equal(ruleMatches(r(["pods"], "Cluster"), req("pods")), false);
  assert.equal(ruleMatches(r(["pods"], "Namespaced"), req("pods")), true);
  assert.equal(ruleMatches(r(["namespaces"], "Cluster"), req("namespaces", "", "ns")), true);
  assert.equal(ruleMatches(r(["namespaces"], "Namespaced"), req("namespaces", "", "ns")), false);
  assert.equal(
    ruleMatches({ ...r(["pods"]), operations: ["CREATE"] }, req("pods")),
    false,
  );
  assert.equal(
    isExemptAdmissionConfigurationResource({
      group: "admissionregistration.k8s.io",
      version: "v1",
      resource: "validatingadmissionpolicies",
    }),
    true,
  );
});

Deno.test("ResourceMatcher.matches() applies resource names and exclude rules", async () => {
  const m = ResourceMatcher.compile({
    resourceRules: [{ ...podRule, resourceNames: ["x", "y"] }],
    excludeResourceRules: [{ ...podRule, resourceNames: ["y"] }],
  }, { emptyRulesMatchAll: false });
  assert.equal((await m.matches(matchRequestOf(attrs(pods)), deps)).matches, true);
  const y = matchRequestOf(attrs(pods, { name: "y" }));
  assert.equal((await m.matches(y, deps)).matches, false);
  const z = matchRequestOf(attrs(pods, { name: "z" }));
  assert.equal((await m.matches(z, deps)).matches, false);
});

Deno.test("ResourceMatcher.matches() checks selectors only for matching rules", async () => {
  const m = ResourceMatcher.compile({
    resourceRules: [podRule],
    namespaceSelector: { matchLabels: { env: "prod" } },
    objectSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
  }, { emptyRulesMatchAll: false });
  lookups = 0;
  assert.equal((await m.matches(matchRequestOf(attrs(nodes)), deps)).matches, false);
  assert.equal(lookups, 0);
  assert.equal((await m.matches(matchRequestOf(attrs(pods)), deps)).matches, true);
  assert.equal(lookups, 1);
  const other = attrs(pods, { object: obj("x", { app: "db" }) });
  assert.equal((await m.matches(matchRequestOf(other), deps)).matches, false);
  const oldOnly = attrs(pods, {
    operation: "CREATE",
    object: obj("x"),
    oldObject: obj("x", { app: "web" }),
  });
  assert.equal((await m.matches(matchRequestOf(oldOnly), deps)).matches, true);
  const missing = await m.matches(matchRequestOf(attrs(pods, { namespace: "gone" })), deps);
  assert.equal(missing.matches, false);
  assert.match(missing.error ?? "", /namespace "gone" not found/);
});

Deno.test("ResourceMatcher.matches() judges Namespaces by their own labels", async () => {
  const m = ResourceMatcher.compile({
    namespaceSelector: { matchLabels: { env: "prod" } },
  }, { emptyRulesMatchAll: true });
  const create = attrs(namespaces, { name: "n", object: obj("n", { env: "prod" }) });
  assert.equal((await m.matches(matchRequestOf(create), deps)).matches, true);
  const other = attrs(namespaces, { name: "n", object: obj("n", { env: "dev" }) });
  assert.equal((await m.matches(matchRequestOf(other), deps)).matches, false);
  // Cluster-scoped objects always pass the namespace selector.
  assert.equal((await m.matches(matchRequestOf(attrs(nodes)), deps)).matches, true);
  const none = ResourceMatcher.compile({}, { emptyRulesMatchAll: false });
  assert.equal((await none.matches(matchRequestOf(attrs(nodes)), deps)).matches, false);
});

Deno.test("ResourceMatcher.matches() finds equivalent versions unless Exact", async () => {
  const v1Rule = {
    operations: ["*"],
    apiGroups: ["autoscaling"],
    apiVersions: ["v1"],
    resources: ["horizontalpodautoscalers"],
  };
  const eq = ResourceMatcher.compile({ resourceRules: [v1Rule] }, { emptyRulesMatchAll: false });
  const r = await eq.matches(matchRequestOf(attrs(hpaV2)), deps);
  assert.equal(r.matches, true);
  if (!r.matches) return;
  assert.equal(r.def, hpaV1);
  assert.deepEqual(r.kind, {
    group: "autoscaling",
    version: "v1",
    kind: "HorizontalPodAutoscaler",
  });
  const exact = ResourceMatcher.compile({ resourceRules: [v1Rule], matchPolicy: "Exact" }, {
    emptyRulesMatchAll: false,
  });
  assert.equal((await exact.matches(matchRequestOf(attrs(hpaV2)), deps)).matches, false);
  const converted = await convertObject(obj("h"), hpaV2, hpaV1);
  assert.deepEqual(converted.spec, { v1: true });
  assert.equal(converted.apiVersion, "autoscaling/v1");
  assert.deepEqual(equivalents.for(pods), []);
});

Deno.test("ResourceMatcher.compile() reports a bad selector as an error result", async () => {
  const m = ResourceMatcher.compile({
    resourceRules: [podRule],
    objectSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] },
  }, { emptyRulesMatchAll: false });
  const r = await m.matches(matchRequestOf(attrs(pods)), deps);
  assert.equal(r.matches, false);
  assert.ok(r.error);
});

Deno.test("matchRequestOf() matches the version the request was sent as", async () => {
  const v1Rule = {
    operations: ["*"],
    apiGroups: ["autoscaling"],
    apiVersions: ["v1"],
    resources: ["horizontalpodautoscalers"],
  };
  const exact = ResourceMatcher.compile({ resourceRules: [v1Rule], matchPolicy: "Exact" }, {
    emptyRulesMatchAll: false,
  });
  const sentAsV1 = attrs(hpaV2, { requestKind: hpaV1 });
  const r = await exact.matches(matchRequestOf(sentAsV1), deps);
  assert.equal(r.matches, true);
  if (r.matches) assert.equal(r.def, hpaV1);
  const req = await admissionRequestOf(sentAsV1, { matched: hpaV2, includeObjects: true });
  assert.equal(req.requestKind.version, "v1");
  assert.equal(req.kind.version, "v2");
  assert.equal(req.object?.spec, undefined, "the stored form is already v2");
});
