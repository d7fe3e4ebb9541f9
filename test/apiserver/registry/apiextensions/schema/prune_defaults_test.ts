import assert from "node:assert";
import { compileCustomResourceSchema } from "../../../../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";

const obj = (x: Record<string, unknown>) => x as unknown as KubeObject;

const PRUNE_ROWS: [
  string,
  JSONSchemaProps,
  Record<string, unknown>,
  Record<string, unknown>,
  string[],
][] = [
  [
    "root keeps apiVersion, kind and metadata",
    {
      type: "object",
      properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
    },
    {
      apiVersion: "a/v1",
      kind: "K",
      metadata: { name: "x" },
      spec: { a: "1", b: 2 },
      status: {},
    },
    { apiVersion: "a/v1", kind: "K", metadata: { name: "x" }, spec: { a: "1" } },
    ["spec.b", "status"],
  ],
  [
    "list items and map values",
    {
      type: "object",
      properties: {
        l: { type: "array", items: { type: "object", properties: { a: { type: "string" } } } },
        m: {
          type: "object",
          additionalProperties: { type: "object", properties: { v: { type: "integer" } } },
        },
      },
    },
    { l: [{ a: "x", b: 1 }, { c: 2 }], m: { k: { v: 1, w: 2 } } },
    { l: [{ a: "x" }, {}], m: { k: { v: 1 } } },
    ["l[0].b", "l[1].c", "m.k.w"],
  ],
  [
    "preserve-unknown-fields keeps unknown fields but prunes declared subtrees",
    {
      type: "object",
      properties: {
        p: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { s: { type: "object", properties: { a: { type: "string" } } } },
        },
      },
    },
    { p: { any: { deep: 1 }, s: { a: "x", b: "y" } } },
    { p: { any: { deep: 1 }, s: { a: "x" } } },
    ["p.s.b"],
  ],
  [
    "embedded resources keep apiVersion, kind and metadata (ObjectMeta fields only)",
    {
      type: "object",
      properties: {
        e: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
        },
      },
    },
    {
      e: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p", bogus: 1 },
        spec: { a: "x", b: 1 },
        other: 1,
      },
    },
    { e: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { a: "x" } } },
    ["e.metadata.bogus", "e.spec.b", "e.other"],
  ],
  [
    "an object without properties loses all its fields",
    { type: "object", properties: { o: { type: "object" } } },
    { o: { a: 1 } },
    { o: {} },
    ["o.a"],
  ],
];

Deno.test("prune() removes unknown fields and reports their paths", async (t) => {
  for (const [name, schema, input, want, paths] of PRUNE_ROWS) {
    await t.step(name, () => {
      const c = compileCustomResourceSchema(schema);
      const o = obj(structuredClone(input));
      assert.deepStrictEqual(c.prune(o), paths);
      assert.deepStrictEqual(o, want);
    });
  }
});

Deno.test("applyDefaults() defaults absent fields, nulls, list items and map values", async (t) => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        default: {},
        properties: {
          replicas: { type: "integer", default: 1 },
          nullable: { type: "string", nullable: true, default: "d" },
          nonNullable: { type: "string", default: "d" },
          dropped: { type: "string" },
          keep: { type: "string", nullable: true },
          list: {
            type: "array",
            items: {
              type: "object",
              default: { x: 1 },
              properties: { x: { type: "integer" }, y: { type: "string", default: "y" } },
            },
          },
          map: { type: "object", additionalProperties: { type: "string", default: "v" } },
        },
      },
    },
  };
  const c = compileCustomResourceSchema(schema);
  await t.step("an absent parent with a default is created and defaulted inside", () => {
    const o = obj({ apiVersion: "a/v1", kind: "K", metadata: { name: "x" } });
    c.applyDefaults(o);
    assert.deepStrictEqual(o.spec, { replicas: 1, nonNullable: "d", nullable: "d" });
  });
  await t.step("nulls: nullable kept, non-nullable defaulted or dropped", () => {
    const o = obj({
      spec: {
        nullable: null,
        nonNullable: null,
        dropped: null,
        keep: null,
        list: [null, { x: 2 }],
        map: { a: null, b: "b" },
      },
    });
    c.applyDefaults(o);
    assert.deepStrictEqual(o.spec, {
      replicas: 1,
      nullable: null,
      nonNullable: "d",
      keep: null,
      list: [{ x: 1 }, { x: 2, y: "y" }],
      map: { a: "v", b: "b" },
    });
  });
});
