import assert from "node:assert";
import {
  compileCustomResourceSchema,
  validateCrdSchema,
} from "../../../../../apiserver/registry/apiextensions/schema/custom_resource_schema.ts";
import type { JSONSchemaProps } from "../../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

/** metav1.Condition as controller-gen emits it. */
const CONDITION: JSONSchemaProps = {
  type: "object",
  required: ["lastTransitionTime", "message", "reason", "status", "type"],
  properties: {
    lastTransitionTime: { type: "string", format: "date-time" },
    message: { type: "string", maxLength: 32768 },
    observedGeneration: { type: "integer", format: "int64", minimum: 0 },
    reason: {
      type: "string",
      maxLength: 1024,
      minLength: 1,
      pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
    },
    status: { type: "string", enum: ["True", "False", "Unknown"] },
    type: {
      type: "string",
      maxLength: 316,
      pattern:
        "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
    },
  },
};

/** A CronTab-like schema in the shape controller-gen emits, with CEL rules. */
const SCHEMA: JSONSchemaProps = {
  type: "object",
  description: "CronTab is the Schema for the crontabs API",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        { rule: "self.minReplicas <= self.replicas", message: "replicas should be >= minReplicas" },
        { rule: "!has(self.image) || self.image == oldSelf.image", message: "image is immutable" },
      ],
      properties: {
        cronSpec: { type: "string", pattern: "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$" },
        image: { type: "string" },
        replicas: { type: "integer", minimum: 1, maximum: 10, default: 1 },
        minReplicas: { type: "integer", default: 1 },
        resources: {
          type: "object",
          additionalProperties: {
            anyOf: [{ type: "integer" }, { type: "string" }],
            pattern:
              "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
            "x-kubernetes-int-or-string": true,
          },
        },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
        ports: {
          type: "array",
          maxItems: 16,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string", maxLength: 15 },
              port: { type: "integer", format: "int32" },
            },
          },
        },
      },
    },
    status: {
      type: "object",
      properties: {
        conditions: {
          type: "array",
          items: CONDITION,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["type"],
        },
      },
    },
  },
};

const P = "spec.versions[0].schema.openAPIV3Schema";

Deno.test("validateCrdSchema() accepts a controller-gen style schema with CEL rules", () => {
  assert.deepStrictEqual(validateCrdSchema(SCHEMA, P, { hasStatus: true }), []);
  assert.deepStrictEqual(validateCrdSchema(SCHEMA, P, { hasStatus: true, oldSchema: SCHEMA }), []);
});

Deno.test("compileCustomResourceSchema() prunes, defaults and validates a whole object", () => {
  const c = compileCustomResourceSchema(SCHEMA);
  const obj = {
    apiVersion: "stable.example.com/v1",
    kind: "CronTab",
    metadata: { name: "my-cron", namespace: "default", labels: { a: "b" } },
    spec: {
      cronSpec: "* * * * */5",
      image: "my-cron-image",
      extra: true,
      resources: { cpu: "100m", memory: 1024 },
      template: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { any: 1 } },
      ports: [{ name: "http", port: 80 }],
    },
    status: {
      conditions: [{
        type: "Ready",
        status: "True",
        reason: "Done",
        message: "",
        lastTransitionTime: "2024-01-01T00:00:00Z",
      }],
    },
  } as unknown as KubeObject;
  assert.deepStrictEqual(c.prune(obj), ["spec.extra"]);
  c.applyDefaults(obj);
  const spec = (obj as unknown as { spec: Record<string, unknown> }).spec;
  assert.strictEqual(spec.replicas, 1);
  assert.strictEqual(spec.minReplicas, 1);
  assert.deepStrictEqual(c.validate(obj), []);
  const next = structuredClone(obj) as unknown as { spec: Record<string, unknown> };
  next.spec.image = "other";
  next.spec.minReplicas = 5;
  next.spec.resources = { cpu: "lots" };
  assert.deepStrictEqual(c.validate(next as unknown as KubeObject, obj).map(fieldErrorMessage), [
    `spec.resources.cpu: Invalid value: "lots": spec.resources.cpu in body should match '${
      (SCHEMA.properties!.spec.properties!.resources.additionalProperties as JSONSchemaProps)
        .pattern
    }'`,
    'spec: Invalid value: "object": replicas should be >= minReplicas',
    'spec: Invalid value: "object": image is immutable',
  ]);
  next.spec.resources = {};
  assert.deepStrictEqual(c.validate(next as unknown as KubeObject, obj).map(fieldErrorMessage), [
    'spec: Invalid value: "object": replicas should be >= minReplicas',
    'spec: Invalid value: "object": image is immutable',
  ]);
});
