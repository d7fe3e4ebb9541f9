import assert from "node:assert/strict";
import { parseJsonPath } from "../../../../../apiserver/registry/apiextensions/customresources/json_path.ts";

const OBJ = {
  metadata: { name: "a", labels: { "app.kubernetes.io/name": "web" } },
  spec: { replicas: 3, items: [{ name: "x", n: 1 }, { name: "y", n: 5 }] },
  status: {
    conditions: [
      { type: "Available", status: "False" },
      { type: "Ready", status: "True" },
    ],
  },
};

Deno.test("parseJsonPath() finds fields, indexes, wildcards and filters", () => {
  const find = (p: string) => parseJsonPath(p).find(OBJ);
  assert.deepEqual(find(".spec.replicas"), [3]);
  assert.deepEqual(find(".spec.missing"), []);
  assert.deepEqual(find(".spec.items[1].name"), ["y"]);
  assert.deepEqual(find(".spec.items[-1].n"), [5]);
  assert.deepEqual(find(".spec.items[*].name"), ["x", "y"]);
  assert.deepEqual(find('.status.conditions[?(@.type=="Ready")].status'), ["True"]);
  assert.deepEqual(find(".status.conditions[?(@.type=='Gone')].status"), []);
  assert.deepEqual(find(".spec.items[?(@.n > 2)].name"), ["y"]);
  assert.deepEqual(find(".metadata.labels['app.kubernetes.io/name']"), ["web"]);
  assert.deepEqual(find(".metadata.labels.app\\.kubernetes\\.io/name"), ["web"]);
});

Deno.test("parseJsonPath() rejects what it cannot read", () => {
  assert.throws(() => parseJsonPath(".spec[abc"));
  assert.throws(() => parseJsonPath("spec"));
});
