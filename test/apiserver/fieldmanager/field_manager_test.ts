import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { FieldManager } from "../../../apiserver/fieldmanager/field_manager.ts";
import { kindSchema } from "../../../apiserver/fieldmanager/schema_from_model.ts";

const T0 = Date.parse("2024-05-01T10:00:00Z");

function manager(kind = "ConfigMap", now = () => T0): FieldManager {
  return new FieldManager({
    schema: kindSchema(builtinSchemaModel(), "", "v1", kind),
    group: "",
    version: "v1",
    kind,
    now,
  });
}

function cm(data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", ...extra }, data };
}

function stored(o: KubeObject): KubeObject {
  return { ...o, metadata: { ...o.metadata, uid: "u1" } };
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("no error");
}

Deno.test("FieldManager.update() records Update entries exactly as kube-apiserver writes them", () => {
  const fm = manager();
  const created = stored(fm.update(undefined, cm({ a: "1" }), "kubectl-create"));
  assert.deepEqual(created.metadata.managedFields, [{
    manager: "kubectl-create",
    operation: "Update",
    apiVersion: "v1",
    time: "2024-05-01T10:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
  }]);
  const next = fm.update(
    created,
    { ...cm({ a: "2", b: "3" }), metadata: created.metadata },
    "editor",
  );
  assert.deepEqual(next.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]), [
    ["editor", { "f:data": { "f:a": {}, "f:b": {} } }],
    ["kubectl-create", { "f:data": {} }],
  ]);
});

Deno.test("FieldManager.apply() conflicts, forces, shares and releases ownership", async (t) => {
  const fm = manager();
  let live = stored(fm.apply(undefined, cm({ a: "1", b: "2" }), "one", false));
  await t.step("a different value of another manager's field is a 409 with one cause", () => {
    const err = conflictOf(() => fm.apply(live, cm({ a: "9" }), "two", false));
    assert.equal(err.code, 409);
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "one": .data.a');
    assert.deepEqual(err.status.details?.causes, [{
      reason: "FieldManagerConflict",
      message: 'conflict with "one"',
      field: ".data.a",
    }]);
  });
  await t.step("two conflicts are listed per manager", () => {
    const err = conflictOf(() => fm.apply(live, cm({ a: "9", b: "9" }), "two", false));
    assert.equal(
      err.status.message,
      'Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b',
    );
  });
  await t.step("the same value is shared ownership", () => {
    live = stored(fm.apply(live, cm({ a: "1" }), "two", false));
    const sets = live.metadata.managedFields!.map((e) => [e.manager, e.time, e.fieldsV1]);
    // A no-op apply records no time, so the entry sorts first.
    assert.deepEqual(sets, [
      ["two", undefined, { "f:data": { "f:a": {} } }],
      ["one", "2024-05-01T10:00:00Z", { "f:data": { "f:a": {}, "f:b": {} } }],
    ]);
  });
  await t.step("omitting a shared field releases it and keeps the value", () => {
    live = stored(fm.apply(live, cm({ b: "2" }), "one", false));
    assert.equal((live.data as Record<string, string>).a, "1");
  });
  await t.step("force takes the field from its owner", () => {
    live = stored(fm.apply(live, cm({ b: "7" }), "two", true));
    const sets = live.metadata.managedFields!.map((e) => [e.manager, e.fieldsV1]);
    assert.deepEqual(sets, [["two", { "f:data": { "f:b": {} } }]]);
  });
  await t.step("omitting a field nobody else owns removes it", () => {
    live = stored(fm.apply(live, cm({ b: "7" }), "two", false));
    assert.deepEqual(live.data, { b: "7" });
  });
  await t.step("an Update by another manager never conflicts and takes the field", () => {
    const next = fm.update(live, { ...cm({ b: "8" }), metadata: live.metadata }, "ctl");
    assert.deepEqual(next.metadata.managedFields!.map((e) => e.manager), ["ctl"]);
  });
});

Deno.test("FieldManager.apply() validates the patch", async (t) => {
  const fm = manager();
  await t.step("managedFields in the body is 400", () => {
    const err = conflictOf(() => fm.apply(undefined, cm({}, { managedFields: [] }), "m", false));
    assert.equal(err.code, 400);
    assert.equal(err.status.message, "metadata.managedFields must be nil");
  });
  await t.step("another kind is 400", () => {
    const err = conflictOf(() => fm.apply(undefined, { ...cm({}), kind: "Secret" }, "m", false));
    assert.equal(err.status.message, "invalid object type: /v1, Kind=Secret");
  });
  await t.step("a list item without its key is 400", () => {
    const pods = manager("Pod");
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ image: "i" }] },
    };
    assert.equal(conflictOf(() => pods.apply(undefined, pod, "m", false)).code, 400);
  });
});

Deno.test("FieldManager tracks map lists per key: two managers own two containers", () => {
  const fm = manager("Pod");
  const pod = (name: string, image: string) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: { containers: [{ name, image, ports: [{ containerPort: 80 }] }] },
  });
  let live = stored(fm.apply(undefined, pod("a", "i1"), "one", false));
  live = stored(fm.apply(live, pod("b", "i2"), "two", false));
  const spec = live.spec as { containers: { name: string }[] };
  assert.deepEqual(spec.containers.map((c) => c.name), ["a", "b"]);
  assert.deepEqual(live.metadata.managedFields![1].fieldsV1, {
    "f:spec": {
      "f:containers": {
        'k:{"name":"b"}': {
          ".": {},
          "f:image": {},
          "f:name": {},
          "f:ports": {
            'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
          },
        },
      },
    },
  });
  live = stored(fm.apply(live, { ...pod("b", "i2"), spec: { containers: [] } }, "two", false));
  assert.deepEqual(
    (live.spec as { containers: { name: string }[] }).containers.map((c) => c.name),
    ["a"],
  );
});

Deno.test("FieldManager.update() resets managedFields on [{}] and ignores []", () => {
  const fm = manager();
  const live = stored(fm.update(undefined, cm({ a: "1" }), "creator"));
  const kept = fm.update(live, {
    ...cm({ a: "1" }),
    metadata: { ...live.metadata, managedFields: [] },
  }, "u");
  assert.deepEqual(kept.metadata.managedFields?.map((e) => e.manager), ["creator"]);
  const reset = fm.update(live, {
    ...cm({ a: "1" }),
    metadata: { ...live.metadata, managedFields: [{}] },
  }, "u");
  assert.equal(reset.metadata.managedFields, undefined);
  const resetAndChange = fm.update(live, {
    ...cm({ a: "2" }),
    metadata: { ...live.metadata, managedFields: [{}] },
  }, "u");
  assert.deepEqual(resetAndChange.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]), [
    ["u", { "f:data": { "f:a": {} } }],
  ]);
});

Deno.test("FieldManager caps Update managers at 10, merging the oldest into ancient-changes", () => {
  let t = T0;
  const fm = manager("ConfigMap", () => t);
  let live = stored(fm.update(undefined, cm({ k0: "v" }), "m0"));
  for (let i = 1; i <= 10; i++) {
    t += 1000;
    const data = { ...(live.data as Record<string, string>), [`k${i}`]: "v" };
    live = stored(fm.update(live, { ...cm(data), metadata: live.metadata }, `m${i}`));
  }
  const names = live.metadata.managedFields!.map((e) => e.manager);
  assert.equal(names.length, 10);
  assert.equal(names[0], "ancient-changes");
  assert.deepEqual(live.metadata.managedFields![0].fieldsV1, {
    "f:data": { ".": {}, "f:k0": {}, "f:k1": {} },
  });
});

Deno.test("FieldManager.apply() as kubectl migrates fields from client-side apply", () => {
  const fm = manager();
  const lastApplied =
    '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"name":"x"}}\n';
  const created = fm.update(
    undefined,
    cm({ a: "1" }, {
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied },
    }),
    "kubectl-client-side-apply",
  );
  const live = stored(created);
  const out = fm.apply(live, cm({ a: "2" }), "kubectl", false);
  assert.deepEqual(out.data, { a: "2" });
  const ann = out.metadata.annotations!["kubectl.kubernetes.io/last-applied-configuration"];
  assert.equal(
    ann,
    '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"x"}}\n',
  );
  assert.equal(conflictOf(() => fm.apply(live, cm({ a: "2" }), "other", false)).code, 409);
});
