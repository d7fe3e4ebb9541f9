import assert from "node:assert/strict";
import { nodeSubresourceFor } from "../../../nodeagent/stats/stats_endpoints.ts";

Deno.test("nodeSubresourceFor() maps paths to the node subresources the kubelet authorizes", () => {
  assert.equal(nodeSubresourceFor("/metrics"), "metrics");
  assert.equal(nodeSubresourceFor("/metrics/resource"), "metrics");
  assert.equal(nodeSubresourceFor("/metrics/cadvisor"), "metrics");
  assert.equal(nodeSubresourceFor("/stats/summary"), "stats");
  assert.equal(nodeSubresourceFor("/stats"), "stats");
  assert.equal(nodeSubresourceFor("/logs/syslog"), "log");
  assert.equal(nodeSubresourceFor("/checkpoint/ns/pod/c"), "checkpoint");
  assert.equal(nodeSubresourceFor("/healthz"), "proxy");
  assert.equal(nodeSubresourceFor("/metricsx"), "proxy");
  assert.equal(nodeSubresourceFor("/containerLogs/ns/pod/c"), "proxy");
});
