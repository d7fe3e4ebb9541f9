import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import { FieldManager } from "../../../apiserver/fieldmanager/field_manager.ts";
import { FieldSet } from "../../../apiserver/fieldmanager/field_set.ts";
import { fieldElement } from "../../../apiserver/fieldmanager/path_element.ts";
import { kindSchema } from "../../../apiserver/fieldmanager/schema_from_model.ts";
import { createdFieldsV1 } from "../../../apiserver/fieldmanager/created_fields.ts";
import { Schema, UNTYPED_DEDUCED } from "../../../apiserver/fieldmanager/schema.ts";

const T0 = Date.parse("2024-05-01T10:00:00Z");

/** The fast and the general create path of one kind's main endpoint, as track_write builds it. */
function managers(group: string, version: string, kind: string, statusSubresource: boolean) {
  const make = (fastCreate: boolean) =>
    new FieldManager({
      schema: kindSchema(builtinSchemaModel(), group, version, kind),
      group,
      version,
      kind,
      ignore: statusSubresource ? FieldSet.of([fieldElement("status")]) : undefined,
      now: () => T0,
      fastCreate,
    });
  return { fast: make(true), general: make(false) };
}

const PAD = "x".repeat(64);

const CASES: Array<{
  name: string;
  kind: [string, string, string, boolean];
  obj: Record<string, unknown>;
  manager?: string;
}> = [
  {
    name: "a ConfigMap with labels, annotations and data",
    kind: ["", "v1", "ConfigMap", false],
    obj: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "cm",
        namespace: "ns",
        labels: { app: "bench", "b/c": "d" },
        annotations: { z: "1", a: "2" },
      },
      data: { payload: PAD, "10": "a", "9": "b", "": "empty" },
      binaryData: { bin: "AAEC" },
    },
  },
  {
    name: "metadata that only the server owns leaves no entry",
    kind: ["", "v1", "ConfigMap", false],
    obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } },
  },
  {
    name: "empty maps and nulls are leaves",
    kind: ["", "v1", "ConfigMap", false],
    obj: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", labels: {}, annotations: null },
      data: {},
      binaryData: null,
    },
  },
  {
    name: "a Pod: associative lists with keys and defaults, sets, atomic lists, status ignored",
    kind: ["", "v1", "Pod", true],
    obj: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "p",
        namespace: "ns",
        generateName: "p-",
        finalizers: ["b/x", "a/y"],
        ownerReferences: [
          { apiVersion: "v1", kind: "ReplicaSet", name: "rs", uid: "u2", controller: true },
          { apiVersion: "v1", kind: "ReplicaSet", name: "rs0", uid: "u1" },
        ],
      },
      spec: {
        nodeName: "n1",
        containers: [
          {
            name: "b",
            image: "img",
            command: ["sh", "-c"],
            args: ["echo"],
            env: [{ name: "Z", value: "1" }, { name: "A", value: "2" }],
            ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }],
          },
          { name: "a", image: "img2", unknownField: { deep: { x: 1 } } },
        ],
        tolerations: [{ key: "k", operator: "Exists" }],
      },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    },
  },
  {
    name: "duplicate items of an associative list are one leaf",
    kind: ["", "v1", "Pod", true],
    obj: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        containers: [
          { name: "a", image: "1" },
          { name: "a", image: "2" },
          { name: "b", image: "3", env: [{ name: "E" }, { name: "E", value: "x" }] },
        ],
      },
    },
  },
  {
    name: "an item without its key drops managedFields, as the general path does",
    kind: ["", "v1", "Pod", true],
    obj: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { a: "b" } },
      spec: { containers: [{ image: "no-name" }] },
    },
  },
  {
    name: "a Namespace: spec kept, status ignored",
    kind: ["", "v1", "Namespace", true],
    obj: {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "n", labels: { team: "a" } },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    },
  },
  {
    name: "a Secret with stringData, type and immutable",
    kind: ["", "v1", "Secret", false],
    obj: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: "ns" },
      type: "Opaque",
      immutable: true,
      data: { k: "dg==" },
      stringData: { s: "v" },
    },
  },
  {
    name: "a Lease of a named group",
    kind: ["coordination.k8s.io", "v1", "Lease", false],
    obj: {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l", namespace: "kube-node-lease" },
      spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: null },
    },
  },
  {
    name: "a kind the schema model does not know (deduced: granular maps, atomic lists)",
    kind: ["example.com", "v1", "Widget", false],
    obj: {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", labels: { a: "b" } },
      spec: { size: 3, items: [{ a: 1 }], nested: { deeper: { x: true }, empty: {} } },
    },
  },
  {
    name: "a manager named like JSON, with the server-set metadata also sent",
    kind: ["", "v1", "ConfigMap", false],
    manager: 'odd "name" {x}',
    obj: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "cm",
        uid: "sent",
        resourceVersion: "5",
        generation: 3,
        creationTimestamp: "2020-01-01T00:00:00Z",
        selfLink: "/x",
        labels: { a: "b" },
      },
      data: { a: "b" },
    },
  },
  {
    name: "an empty manager name is recorded as unknown",
    kind: ["", "v1", "ConfigMap", false],
    manager: "",
    obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "b" } },
  },
];

const REQUESTED: Array<[string, unknown]> = [
  ["absent", undefined],
  ["null", null],
  ["an empty list", []],
  ["a reset", [{}]],
  ["garbage", "not a list"],
  ["an invalid entry", [{ manager: "x", operation: "Nope" }]],
];

Deno.test("FieldManager.update() writes the same managedFields on create fast as on the general path", async (t) => {
  for (const c of CASES) {
    for (const [what, requested] of REQUESTED) {
      await t.step(`${c.name}; managedFields sent: ${what}`, () => {
        const { fast, general } = managers(...c.kind);
        const input = structuredClone(c.obj) as KubeObject;
        if (requested !== undefined) {
          (input.metadata as Record<string, unknown>).managedFields = requested;
        }
        const manager = c.manager ?? "creator";
        const want = general.update(undefined, structuredClone(input), manager);
        const got = fast.update(undefined, structuredClone(input), manager);
        assert.deepEqual(got, want);
        // Key order is part of the wire form.
        assert.equal(JSON.stringify(got), JSON.stringify(want));
      });
    }
  }
});

Deno.test("FieldManager.update() takes the general path when the create sends managed fields", () => {
  const { fast, general } = managers("", "v1", "ConfigMap", false);
  const input: KubeObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "cm",
      managedFields: [{
        manager: "earlier",
        operation: "Apply",
        apiVersion: "v1",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:z": {} } },
      }],
    },
    data: { a: "1", b: "2" },
  };
  const got = fast.update(undefined, structuredClone(input), "creator");
  assert.deepEqual(got, general.update(undefined, structuredClone(input), "creator"));
  assert.deepEqual(got.metadata.managedFields?.map((e) => e.manager), ["earlier", "creator"]);
});

Deno.test("createdFieldsV1() strips members but keeps their children, and ignores subtrees", () => {
  const schema = new Schema([]);
  const root = { namedType: UNTYPED_DEDUCED };
  const obj = { a: { b: 1, c: { d: 2 } }, e: 3, f: { g: 4 } };
  assert.deepEqual(
    createdFieldsV1(
      schema,
      root,
      obj,
      FieldSet.of([fieldElement("a")], [fieldElement("a"), fieldElement("b")]),
      FieldSet.of([fieldElement("f")], [fieldElement("a"), fieldElement("c"), fieldElement("d")]),
    ),
    { "f:a": { "f:c": {} }, "f:e": {} },
  );
  assert.equal(createdFieldsV1(schema, root, {}, undefined, undefined), undefined);
  assert.equal(
    createdFieldsV1(schema, root, { e: 3 }, FieldSet.of([fieldElement("e")]), undefined),
    undefined,
  );
});
