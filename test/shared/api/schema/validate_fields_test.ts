import assert from "node:assert/strict";
import { builtinSchemaModel } from "../../../../shared/api/schema/builtin_model.ts";
import { validateFields } from "../../../../shared/api/schema/validate_fields.ts";

const model = builtinSchemaModel();
const pod = model.kind("", "v1", "Pod")!;

Deno.test("validateFields() accepts every real-world fixture object without findings", async () => {
  const dir = new URL("../../../testdata/protobuf/", import.meta.url);
  const objects = [
    ...JSON.parse(await Deno.readTextFile(new URL("objects.json", dir))),
    JSON.parse(await Deno.readTextFile(new URL("pod.json", dir))),
    JSON.parse(await Deno.readTextFile(new URL("node.json", dir))),
  ];
  for (const obj of objects) {
    const [group, version] = obj.apiVersion.includes("/")
      ? obj.apiVersion.split("/")
      : ["", obj.apiVersion];
    const t = model.kind(group, version, obj.kind) ??
      (obj.kind === "Status" || obj.kind === "DeleteOptions" ||
          obj.kind === "PartialObjectMetadata"
        ? undefined
        : assert.fail(`no schema for ${obj.apiVersion} ${obj.kind}`));
    if (!t) continue;
    const r = validateFields(model, t, structuredClone(obj));
    assert.deepEqual(r, { unknown: [], errors: [] }, `${obj.apiVersion} ${obj.kind}`);
  }
});

Deno.test("validateFields() finds unknown fields, type errors, enums and missing required fields", async (t) => {
  const cases: {
    name: string;
    obj: Record<string, unknown>;
    unknown?: string[];
    errors?: [string, string][];
    after?: (o: Record<string, unknown>) => void;
  }[] = [
    {
      name: "unknown fields at every depth are removed",
      obj: {
        foo: 1,
        metadata: { name: "a", bar: true },
        spec: { containers: [{ name: "c", image: "i", baz: [] }] },
      },
      unknown: ["foo", "metadata.bar", "spec.containers[0].baz"],
      after: (o) => assert.equal("foo" in o, false),
    },
    {
      name: "nulls mean unset",
      obj: { metadata: { name: "a", creationTimestamp: null }, spec: null },
      after: (o) => {
        assert.equal("spec" in o, false);
        assert.deepEqual(o.metadata, { name: "a" });
      },
    },
    {
      name: "wrong types",
      obj: {
        metadata: { name: 5, labels: { a: 1 } },
        spec: { containers: "x", terminationGracePeriodSeconds: "30" },
      },
      errors: [
        ["FieldValueTypeInvalid", "metadata.name"],
        ["FieldValueTypeInvalid", "metadata.labels[a]"],
        ["FieldValueTypeInvalid", "spec.containers"],
        ["FieldValueTypeInvalid", "spec.terminationGracePeriodSeconds"],
      ],
    },
    {
      name: "missing required fields and unsupported enum values",
      obj: {
        metadata: {},
        spec: { restartPolicy: "Sometimes", containers: [{ image: "i" }] },
      },
      errors: [
        ["FieldValueRequired", "spec.containers[0].name"],
        ["FieldValueNotSupported", "spec.restartPolicy"],
      ],
    },
    {
      name: "quantities and int-or-string",
      obj: {
        metadata: {},
        spec: {
          containers: [{
            name: "c",
            resources: { limits: { cpu: 2, memory: "1Gi", bad: "1 potato" } },
            readinessProbe: { httpGet: { port: "http" } },
            livenessProbe: { httpGet: { port: 1.5 } },
          }],
        },
      },
      errors: [
        ["FieldValueInvalid", "spec.containers[0].resources.limits[bad]"],
        ["FieldValueTypeInvalid", "spec.containers[0].livenessProbe.httpGet.port"],
      ],
      after: (o) => {
        const c = (o.spec as { containers: { resources: { limits: { cpu: unknown } } }[] })
          .containers[0];
        assert.equal(c.resources.limits.cpu, "2");
      },
    },
    {
      name: "quantities are stored in canonical form",
      obj: {
        metadata: {},
        spec: {
          containers: [{
            name: "c",
            resources: {
              limits: { cpu: "1000m", memory: "1024Ki", "example.com/gpu": 0.5 },
              requests: { cpu: " 250m ", memory: "1.5Gi", "ephemeral-storage": "1e3" },
            },
          }],
        },
      },
      after: (o) => {
        const c = (o.spec as { containers: { resources: unknown }[] }).containers[0];
        assert.deepEqual(c.resources, {
          limits: { cpu: "1", memory: "1Mi", "example.com/gpu": "500m" },
          requests: { cpu: "250m", memory: "1536Mi", "ephemeral-storage": "1e3" },
        });
      },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const r = validateFields(model, pod, c.obj);
      assert.deepEqual(r.unknown, c.unknown ?? []);
      assert.deepEqual(
        r.errors.map((e) => [e.type, e.field]).sort(),
        (c.errors ?? []).sort(),
      );
      c.after?.(c.obj);
    });
  }
});
