import assert from "node:assert/strict";
import { toTable } from "../../../apiserver/http/table/table.ts";
import { humanDuration } from "../../../apiserver/registry/generic/table_columns.ts";
import { BUILTIN_KINDS } from "../../../apiserver/registry/builtin_kinds.ts";
import type { KindDef } from "../../../apiserver/registry/generic/kind.ts";

const kind = (k: string) => BUILTIN_KINDS.find((d) => d.kind === k && d.group === "")!;
const NOW = Date.parse("2025-01-01T12:00:00Z");

Deno.test("humanDuration() formats like kubectl's AGE column", async (t) => {
  const cases: [number, string][] = [
    [-5000, "<invalid>"],
    [-500, "0s"],
    [59_000, "59s"],
    [119_000, "119s"],
    [125_000, "2m5s"],
    [600_000, "10m"],
    [3 * 3600_000 + 5 * 60_000, "3h5m"],
    [9 * 3600_000, "9h"],
    [50 * 3600_000, "2d2h"],
    [30 * 86400_000, "30d"],
    [3 * 365 * 86400_000, "3y"],
  ];
  for (const [ms, want] of cases) await t.step(want, () => assert.equal(humanDuration(ms), want));
});

Deno.test("toTable() renders the built-in kinds' columns", async (t) => {
  const meta = (name: string) => ({
    name,
    namespace: "d",
    creationTimestamp: "2025-01-01T11:55:00Z",
    resourceVersion: "7",
  });
  const cases: [string, Record<string, unknown>, string[], unknown[]][] = [
    [
      "Pod",
      {
        metadata: meta("p"),
        spec: { containers: [{ name: "a" }, { name: "b" }], nodeName: "n1" },
        status: {
          phase: "Running",
          podIP: "10.0.0.1",
          containerStatuses: [
            { name: "a", ready: true, restartCount: 2, state: { running: {} } },
            {
              name: "b",
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: "CrashLoopBackOff" } },
            },
          ],
        },
      },
      ["Name", "Ready", "Status", "Restarts", "Age"],
      ["p", "1/2", "CrashLoopBackOff", "2", "5m", "10.0.0.1", "n1", "<none>", "<none>"],
    ],
    [
      "Node",
      {
        metadata: { ...meta("n"), labels: { "node-role.kubernetes.io/control-plane": "" } },
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: "Ready", status: "True" }],
          nodeInfo: {
            kubeletVersion: "v1.32.0",
            osImage: "Debian",
            kernelVersion: "6.1",
            containerRuntimeVersion: "x://1",
          },
          addresses: [{ type: "InternalIP", address: "10.1.1.1" }],
        },
      },
      ["Name", "Status", "Roles", "Age", "Version"],
      [
        "n",
        "Ready,SchedulingDisabled",
        "control-plane",
        "5m",
        "v1.32.0",
        "10.1.1.1",
        "<none>",
        "Debian",
        "6.1",
        "x://1",
      ],
    ],
    [
      "Namespace",
      { metadata: meta("ns"), status: { phase: "Active" } },
      ["Name", "Status", "Age"],
      ["ns", "Active", "5m"],
    ],
    ["ConfigMap", { metadata: meta("c"), data: { a: "1", b: "2" } }, ["Name", "Data", "Age"], [
      "c",
      2,
      "5m",
    ]],
    ["Secret", { metadata: meta("s"), type: "Opaque", data: { a: "MQ==" } }, [
      "Name",
      "Type",
      "Data",
      "Age",
    ], ["s", "Opaque", 1, "5m"]],
  ];
  for (const [k, obj, cols, cells] of cases) {
    await t.step(k, () => {
      const table = toTable(obj, kind(k), { now: NOW, includeObject: "None" });
      assert.deepEqual(
        table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name),
        cols,
      );
      assert.deepEqual(table.rows[0].cells, cells);
      assert.equal(table.rows[0].object, undefined);
      assert.equal(table.metadata.resourceVersion, "7");
    });
  }
});

Deno.test("toTable() has default columns, includeObject and list metadata", () => {
  const plain: KindDef = { ...kind("ConfigMap"), strategy: { validate: () => [] } };
  const list = {
    apiVersion: "v1",
    kind: "ConfigMapList",
    metadata: { resourceVersion: "42", continue: "tok", remainingItemCount: 3 },
    items: [{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", creationTimestamp: "2025-01-01T00:00:00Z" },
    }],
  };
  const t = toTable(list, plain, { version: "v1beta1" });
  assert.equal(t.apiVersion, "meta.k8s.io/v1beta1");
  assert.deepEqual(t.columnDefinitions.map((c) => [c.name, c.type]), [["Name", "string"], [
    "Created At",
    "date",
  ]]);
  assert.deepEqual(t.rows[0].cells, ["a", "2025-01-01T00:00:00Z"]);
  assert.deepEqual(t.metadata, { resourceVersion: "42", continue: "tok", remainingItemCount: 3 });
  assert.deepEqual(t.rows[0].object, {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1beta1",
    metadata: list.items[0].metadata,
  });
  assert.deepEqual(toTable(list, plain, { includeObject: "Object" }).rows[0].object, list.items[0]);
});
