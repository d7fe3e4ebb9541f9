import assert from "node:assert/strict";
import { nodeResources } from "../../../nodeagent/status/node_resources.ts";
import { parseEvictionThreshold } from "../../../nodeagent/config/eviction_threshold.ts";

Deno.test("nodeResources() subtracts reservations and hard eviction thresholds", () => {
  const GiB = 2 ** 30;
  const { capacity, allocatable } = nodeResources({
    cpuCount: 4,
    memoryTotalBytes: 16 * GiB,
    memoryAvailableBytes: 8 * GiB,
    pidMax: 32768,
    processCount: 100,
    rootFs: { capacityBytes: 100 * GiB, availableBytes: 50 * GiB, inodes: 0, inodesFree: 0 },
  }, {
    maxPods: 110,
    systemReserved: { cpu: "500m", memory: "1Gi" },
    kubeReserved: { cpu: "100m", memory: "512Mi", "ephemeral-storage": "1Gi" },
    evictionHard: [
      parseEvictionThreshold("memory.available", "100Mi"),
      parseEvictionThreshold("nodefs.available", "10%"),
    ],
  });
  assert.deepEqual(capacity, {
    cpu: "4",
    "ephemeral-storage": `${100 * 1024 * 1024}Ki`,
    memory: `${16 * 1024 * 1024}Ki`,
    pods: "110",
  });
  assert.equal(allocatable.cpu, "3400m");
  assert.equal(allocatable.memory, `${(16 * 1024 - 1024 - 512 - 100) * 1024}Ki`);
  assert.equal(allocatable["ephemeral-storage"], String(Math.floor(100 * GiB - GiB - 10 * GiB)));
  assert.equal(allocatable.pods, "110");
});
