import assert from "node:assert/strict";
import {
  computeNodeConditions,
  type NodeCondition,
  type PressureObservations,
  rfc3339,
} from "../../../nodeagent/status/node_conditions.ts";
import type { HostReadings } from "../../../nodeagent/status/host_readings.ts";
import { parseEvictionThreshold } from "../../../nodeagent/config/eviction_threshold.ts";

const GiB = 2 ** 30;
const healthy: HostReadings = {
  cpuCount: 4,
  memoryTotalBytes: 16 * GiB,
  memoryAvailableBytes: 8 * GiB,
  pidMax: 32768,
  processCount: 200,
  rootFs: { capacityBytes: 100 * GiB, availableBytes: 50 * GiB, inodes: 1000, inodesFree: 900 },
};
const thresholds = [
  parseEvictionThreshold("memory.available", "100Mi"),
  parseEvictionThreshold("nodefs.available", "10%"),
  parseEvictionThreshold("nodefs.inodesFree", "5%"),
  parseEvictionThreshold("pid.available", "1000"),
];
const PERIOD = 300_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function run(
  previous: NodeCondition[],
  observations: PressureObservations,
  now: number,
  over: { readings?: HostReadings | undefined; readyErrors?: string[]; networkErrors?: string[] } =
    {},
) {
  return computeNodeConditions({
    previous,
    observations,
    readings: "readings" in over ? over.readings : healthy,
    thresholds,
    pressureTransitionPeriodMs: PERIOD,
    readyErrors: over.readyErrors ?? [],
    networkErrors: over.networkErrors ?? [],
    now,
  });
}

function byType(cs: NodeCondition[]): Record<string, NodeCondition> {
  return Object.fromEntries(cs.map((c) => [c.type, c]));
}

Deno.test("computeNodeConditions() reports each pressure against its threshold", async (t) => {
  const cases: { name: string; readings: HostReadings; want: Record<string, string> }[] = [
    {
      name: "healthy host",
      readings: healthy,
      want: { MemoryPressure: "False", DiskPressure: "False", PIDPressure: "False" },
    },
    {
      name: "memory below 100Mi",
      readings: { ...healthy, memoryAvailableBytes: 50 * 2 ** 20 },
      want: { MemoryPressure: "True", DiskPressure: "False", PIDPressure: "False" },
    },
    {
      name: "disk below 10%",
      readings: { ...healthy, rootFs: { ...healthy.rootFs, availableBytes: 9 * GiB } },
      want: { MemoryPressure: "False", DiskPressure: "True", PIDPressure: "False" },
    },
    {
      name: "inodes below 5%",
      readings: { ...healthy, rootFs: { ...healthy.rootFs, inodesFree: 40 } },
      want: { MemoryPressure: "False", DiskPressure: "True", PIDPressure: "False" },
    },
    {
      name: "fewer than 1000 pids left",
      readings: { ...healthy, processCount: 32000 },
      want: { MemoryPressure: "False", DiskPressure: "False", PIDPressure: "True" },
    },
  ];
  for (const tc of cases) {
    await t.step(tc.name, () => {
      const c = byType(run([], {}, T0, { readings: tc.readings }).conditions);
      for (const [type, status] of Object.entries(tc.want)) {
        assert.equal(c[type].status, status, type);
      }
      assert.equal(c.Ready.status, "True");
      assert.equal(c.NetworkUnavailable.status, "False");
    });
  }
});

Deno.test("computeNodeConditions() uses the kubelet's reasons and messages", () => {
  const c = byType(
    run([], {}, T0, { readings: { ...healthy, memoryAvailableBytes: 0 } }).conditions,
  );
  assert.equal(c.MemoryPressure.reason, "KubeletHasInsufficientMemory");
  assert.equal(c.DiskPressure.reason, "KubeletHasNoDiskPressure");
  assert.equal(c.PIDPressure.message, "kubelet has sufficient PID available");
  assert.equal(c.Ready.reason, "KubeletReady");
  assert.equal(c.Ready.message, "kubelet is posting ready status");
  assert.deepEqual(Object.keys(c).sort(), [
    "DiskPressure",
    "MemoryPressure",
    "NetworkUnavailable",
    "PIDPressure",
    "Ready",
  ]);
});

Deno.test("computeNodeConditions() moves heartbeats every time and transitions only on change", () => {
  const first = run([], {}, T0);
  const c1 = byType(first.conditions);
  assert.equal(c1.Ready.lastHeartbeatTime, rfc3339(T0));
  assert.equal(c1.Ready.lastTransitionTime, rfc3339(T0));

  const second = run(first.conditions, first.observations, T0 + 10_000);
  const c2 = byType(second.conditions);
  assert.equal(c2.Ready.lastHeartbeatTime, rfc3339(T0 + 10_000));
  assert.equal(c2.Ready.lastTransitionTime, rfc3339(T0));

  const third = run(second.conditions, second.observations, T0 + 20_000, {
    readyErrors: ["container runtime is down"],
  });
  const c3 = byType(third.conditions);
  assert.equal(c3.Ready.status, "False");
  assert.equal(c3.Ready.reason, "KubeletNotReady");
  assert.equal(c3.Ready.message, "[container runtime is down]");
  assert.equal(c3.Ready.lastTransitionTime, rfc3339(T0 + 20_000));
  assert.equal(c3.MemoryPressure.lastTransitionTime, rfc3339(T0));
});

Deno.test("computeNodeConditions() keeps a pressure for the transition period after it clears", () => {
  const low = { ...healthy, memoryAvailableBytes: 0 };
  const a = run([], {}, T0, { readings: low });
  assert.equal(byType(a.conditions).MemoryPressure.status, "True");
  const b = run(a.conditions, a.observations, T0 + PERIOD - 1000);
  assert.equal(byType(b.conditions).MemoryPressure.status, "True");
  assert.equal(byType(b.conditions).MemoryPressure.lastTransitionTime, rfc3339(T0));
  const c = run(b.conditions, b.observations, T0 + PERIOD);
  const mem = byType(c.conditions).MemoryPressure;
  assert.equal(mem.status, "False");
  assert.equal(mem.lastTransitionTime, rfc3339(T0 + PERIOD));
  assert.deepEqual(c.observations, {});
});

Deno.test("computeNodeConditions() without readings keeps pressures and reports not ready", () => {
  const a = run([], {}, T0, { readings: { ...healthy, processCount: 32767 } });
  const b = run(a.conditions, a.observations, T0 + 10_000, { readings: undefined });
  const c = byType(b.conditions);
  assert.equal(c.PIDPressure.status, "True");
  assert.equal(c.Ready.status, "False");
  assert.match(c.Ready.message, /cannot read host status/);
});

Deno.test("computeNodeConditions() reports network errors as NetworkUnavailable", () => {
  const c = byType(run([], {}, T0, { networkErrors: ["no route"] }).conditions);
  assert.equal(c.NetworkUnavailable.status, "True");
  assert.equal(c.NetworkUnavailable.message, "no route");
});
