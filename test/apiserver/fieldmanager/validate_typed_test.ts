import assert from "node:assert/strict";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import { kindSchema } from "../../../apiserver/fieldmanager/schema_from_model.ts";
import { TypedError } from "../../../apiserver/fieldmanager/typed_error.ts";
import { validateTyped } from "../../../apiserver/fieldmanager/validate_typed.ts";

const POD = kindSchema(builtinSchemaModel(), "", "v1", "Pod");
const CONFIG_MAP = kindSchema(builtinSchemaModel(), "", "v1", "ConfigMap");
const UNKNOWN = kindSchema(builtinSchemaModel(), "example.com", "v1", "Widget");

const pod = (spec: unknown, metadata: unknown = { name: "p" }) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata,
  spec,
});

Deno.test("validateTyped() accepts values of the declared shape", async (t) => {
  const cases: Array<[string, typeof POD, unknown]> = [
    ["a full pod", POD, pod({ containers: [{ name: "c", image: "i", args: ["a"] }] })],
    ["nulls anywhere", POD, pod({ containers: null, nodeName: null }, { labels: null })],
    [
      "an int-or-string port as a string",
      POD,
      pod({
        containers: [{
          name: "c",
          ports: [{ containerPort: 80 }],
          livenessProbe: { httpGet: { port: "http" } },
        }],
      }),
    ],
    [
      "an int-or-string port as a number",
      POD,
      pod({
        containers: [{ name: "c", livenessProbe: { httpGet: { port: 8080 } } }],
      }),
    ],
    [
      "a quantity as a string or a number",
      POD,
      pod({
        containers: [{ name: "c", resources: { limits: { cpu: "1", memory: 1024 } } }],
      }),
    ],
    ["members the schema does not declare", CONFIG_MAP, { metadata: { name: "c" }, extra: [1] }],
    ["any shape for a kind without a schema", UNKNOWN, { spec: { a: [1, { b: true }] } }],
  ];
  for (const [name, ks, value] of cases) {
    await t.step(name, () => validateTyped(ks.schema, ks.root, value));
  }
});

Deno.test("validateTyped() names the first member of the wrong shape", async (t) => {
  const cases: Array<[string, typeof POD, unknown, string]> = [
    ["metadata as a number", CONFIG_MAP, { metadata: 7 }, ".metadata: expected map, got 7"],
    ["metadata as a list", CONFIG_MAP, { metadata: [] }, ".metadata: expected map, got []"],
    ["labels as a number", POD, pod({}, { labels: 5 }), ".metadata.labels: expected map, got 5"],
    [
      "a label value as a number",
      POD,
      pod({}, { labels: { a: 5 } }),
      ".metadata.labels.a: expected string, got 5",
    ],
    [
      "finalizers as a string",
      CONFIG_MAP,
      { metadata: { finalizers: "x" } },
      '.metadata.finalizers: expected list, got "x"',
    ],
    ["data as a list", CONFIG_MAP, { data: [1] }, ".data: expected map, got [1]"],
    [
      "a container that is not a map",
      POD,
      pod({ containers: [5] }),
      ".spec.containers[0]: expected map, got 5",
    ],
    [
      "a container name as a number",
      POD,
      pod({ containers: [{ name: 5 }] }),
      ".spec.containers[0].name: expected string, got 5",
    ],
    [
      "a number as a string",
      POD,
      pod({ containers: [{ name: "c", ports: [{ containerPort: "80" }] }] }),
      '.spec.containers[0].ports[0].containerPort: expected numeric (int or float), got "80"',
    ],
    [
      "a boolean as a string",
      POD,
      pod({ hostNetwork: "yes" }),
      '.spec.hostNetwork: expected boolean, got "yes"',
    ],
    [
      "a map for an int-or-string",
      POD,
      pod({ containers: [{ name: "c", livenessProbe: { httpGet: { port: { a: 1 } } } }] }),
      ".spec.containers[0].livenessProbe.httpGet.port: expected any scalar, got {a=1}",
    ],
  ];
  for (const [name, ks, value, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => validateTyped(ks.schema, ks.root, value), (err: unknown) => {
        assert.ok(err instanceof TypedError);
        assert.equal(err.message, message);
        return true;
      });
    });
  }
});
