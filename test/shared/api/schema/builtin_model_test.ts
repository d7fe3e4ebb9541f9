import assert from "node:assert/strict";
import { builtinSchemaModel } from "../../../../shared/api/schema/builtin_model.ts";
import { BUILTIN_KINDS } from "../../../../apiserver/registry/builtin_kinds.ts";

Deno.test("builtinSchemaModel() declares every built-in kind and its list", () => {
  const model = builtinSchemaModel();
  const declared = new Set(["", "coordination.k8s.io"]);
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
