import assert from "node:assert/strict";
import { builtinSchemaModel } from "../../../../shared/api/schema/builtin_model.ts";
import { BUILTIN_KINDS } from "../../../../apiserver/registry/builtin_kinds.ts";

Deno.test("builtinSchemaModel() declares every built-in kind and its list", () => {
  const model = builtinSchemaModel();
  const declared = new Set([
    "",
    "coordination.k8s.io",
    "storage.k8s.io",
    "scheduling.k8s.io",
    "node.k8s.io",
  ]);
  for (const def of BUILTIN_KINDS.filter((d) => declared.has(d.group))) {
    const t = model.kind(def.group, def.version, def.kind);
    assert.ok(t, `${def.kind}`);
    assert.ok(t.properties.apiVersion && t.properties.kind && t.properties.metadata);
    assert.ok(model.kind(def.group, def.version, `${def.kind}List`), `${def.kind}List`);
  }
  for (
    const [g, k] of [["authentication.k8s.io", "TokenReview"], [
      "authorization.k8s.io",
      "SelfSubjectAccessReview",
    ]]
  ) {
    assert.ok(model.kind(g, "v1", k), k);
  }
});

Deno.test("builtinSchemaModel() carries merge markers, enums, defaults and special types", () => {
  const model = builtinSchemaModel();
  const spec = model.type("core.v1.PodSpec")!;
  assert.deepEqual(spec.required, ["containers"]);
  assert.equal(spec.properties.containers.listType, "map");
  assert.deepEqual(spec.properties.containers.listMapKeys, ["name"]);
  assert.equal(spec.properties.containers.patchStrategy, "merge");
  assert.equal(spec.properties.containers.patchMergeKey, "name");
  assert.equal(spec.properties.tolerations.listType, "atomic");
  assert.equal(spec.properties.restartPolicy.default, "Always");
  assert.deepEqual(spec.properties.restartPolicy.enum, ["Always", "Never", "OnFailure"]);
  const c = model.type("core.v1.Container")!;
  assert.deepEqual(c.properties.ports.listMapKeys, ["containerPort", "protocol"]);
  const meta = model.type("meta.v1.ObjectMeta")!;
  assert.equal(meta.properties.finalizers.listType, "set");
  assert.equal(model.resolve(meta.properties.creationTimestamp).format, "date-time");
  const res = model.type("core.v1.ResourceRequirements")!;
  assert.equal(model.resolve(res.properties.limits.values!).type, "quantity");
  const probe = model.type("core.v1.HTTPGetAction")!;
  assert.equal(model.resolve(probe.properties.port).type, "intOrString");
  // Inline members are flattened: Volume has the volume sources as its own fields.
  assert.ok(model.type("core.v1.Volume")!.properties.configMap);
  assert.equal(model.type("core.v1.ObjectReference")!.structType, "atomic");
  assert.equal(model.type("core.v1.Secret")!.properties.data.values!.format, "byte");
});

Deno.test("builtinSchemaModel() declares rbac.authorization.k8s.io/v1 as Kubernetes' OpenAPI does", () => {
  const model = builtinSchemaModel();
  const g = "rbac.authorization.k8s.io";
  for (const k of ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]) {
    const t = model.kind(g, "v1", k);
    assert.ok(t, k);
    assert.ok(t.properties.apiVersion && t.properties.kind && t.properties.metadata, k);
    assert.deepEqual(model.kind(g, "v1", `${k}List`)?.required, ["items"], `${k}List`);
  }
  assert.deepEqual(model.kind(g, "v1", "RoleBinding")!.required, ["roleRef"]);
  assert.deepEqual(model.kind(g, "v1", "ClusterRoleBinding")!.required, ["roleRef"]);
  assert.ok(model.kind(g, "v1", "ClusterRole")!.properties.aggregationRule);
  const ref = model.type("rbac.v1.RoleRef")!;
  assert.deepEqual(ref.required, ["apiGroup", "kind", "name"]);
  assert.equal(ref.structType, "atomic");
  const subject = model.type("rbac.v1.Subject")!;
  assert.deepEqual(subject.required, ["kind", "name"]);
  assert.equal(subject.structType, "atomic");
  const rule = model.type("rbac.v1.PolicyRule")!;
  assert.deepEqual(rule.required, ["verbs"]);
  // No list type or patch strategy upstream: rules and subjects are replaced whole.
  const rules = model.kind(g, "v1", "Role")!.properties.rules;
  assert.equal(rules.patchStrategy, undefined);
  assert.equal(rules.listType, undefined);
});

Deno.test("builtinSchemaModel() declares events.k8s.io/v1 Event", () => {
  const model = builtinSchemaModel();
  const ev = model.kind("events.k8s.io", "v1", "Event")!;
  // Required on create only (the kind's validation); documented as required.
  assert.deepEqual(ev.required, []);
  assert.deepEqual(ev.documentedRequired, ["eventTime"]);
  assert.equal(model.resolve(ev.properties.eventTime).format, "date-time");
  assert.equal(model.type("core.v1.ObjectReference")!.structType, "atomic");
  assert.deepEqual(model.type("events.v1.EventSeries")!.required, ["count", "lastObservedTime"]);
});
