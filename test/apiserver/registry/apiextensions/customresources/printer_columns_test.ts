import assert from "node:assert/strict";
import {
  cellOf,
  customResourceTable,
} from "../../../../../apiserver/registry/apiextensions/customresources/printer_columns.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");

Deno.test("cellOf() formats a value by its column type as kube's CRD table convertor", () => {
  assert.equal(cellOf("integer", 3.7, NOW), 3);
  assert.equal(cellOf("integer", "3", NOW), null);
  assert.equal(cellOf("number", 2, NOW), 2);
  assert.equal(cellOf("boolean", true, NOW), true);
  assert.equal(cellOf("boolean", "true", NOW), null);
  assert.equal(cellOf("string", "x", NOW), "x");
  assert.equal(cellOf("string", 5, NOW), "5");
  assert.equal(cellOf("string", { a: 1 }, NOW), '{"a":1}');
  assert.equal(cellOf("date", "2026-01-01T00:55:00Z", NOW), "5m");
  assert.equal(cellOf("date", "yesterday", NOW), "<invalid>");
  assert.equal(cellOf("date", 5, NOW), null);
  assert.equal(cellOf("string", null, NOW), null);
});

Deno.test("customResourceTable() serves Name and Age without declared columns", () => {
  const t = customResourceTable(undefined);
  assert.deepEqual(t.columns.map((c) => [c.name, c.type]), [["Name", "string"], ["Age", "date"]]);
  const row = t.cells({ metadata: { name: "a", creationTimestamp: "2026-01-01T00:00:00Z" } }, NOW);
  assert.deepEqual(row, ["a", "60m"]);
});

Deno.test("customResourceTable() adds declared columns with their priority and a description", () => {
  const t = customResourceTable([
    { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
    { name: "Image", type: "string", jsonPath: ".spec.image", priority: 1, description: "img" },
  ]);
  assert.deepEqual(t.columns.map((c) => [c.name, c.priority, c.description]).slice(1), [
    ["Replicas", 0, "Custom resource definition column (in JSONPath format): .spec.replicas"],
    ["Image", 1, "img"],
  ]);
  assert.deepEqual(t.cells({ metadata: { name: "a" }, spec: { replicas: 2 } }, NOW), [
    "a",
    2,
    null,
  ]);
});
