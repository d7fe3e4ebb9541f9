import assert from "node:assert/strict";
import { decodeResourceMetrics } from "../../../apiserver/resourcemetrics/decode_resource_metrics.ts";

const TEXT =
  `# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="app",namespace="ns",pod="web"} 1.5 1700000010000
container_cpu_usage_seconds_total{container="side",namespace="ns",pod="web"} 0.25 1700000010000
container_cpu_usage_seconds_total{container="x",namespace="ns",pod="half"} 3 1700000010000
container_memory_working_set_bytes{container="app",namespace="ns",pod="web"} 3.5651584e+07 1700000010000
container_memory_working_set_bytes{container="side",namespace="ns",pod="web"} 1.048576e+06 1700000010000
container_start_time_seconds{container="app",namespace="ns",pod="web"} 1.7e+09 1700000000000
node_cpu_usage_seconds_total 12345.5 1700000009000
node_memory_working_set_bytes 2.147483648e+09 1700000009000
pod_cpu_usage_seconds_total{namespace="ns",pod="web"} 1.75 1700000010000
resource_scrape_error 0
`;

Deno.test("decodeResourceMetrics() reads node and container points with their timestamps", () => {
  const b = decodeResourceMetrics(TEXT, 42);
  assert.deepEqual(b.node, {
    cpuSeconds: 12345.5,
    memoryBytes: 2147483648,
    timestampMs: 1700000009000,
    startTimeMs: 0,
  });
  const web = b.pods.get("ns/web")!;
  assert.deepEqual(web.get("app"), {
    cpuSeconds: 1.5,
    memoryBytes: 35651584,
    timestampMs: 1700000010000,
    startTimeMs: 1700000000000,
  });
  assert.equal(web.get("side")!.startTimeMs, 0);
  // A container without memory drops its pod.
  assert.equal(b.pods.has("ns/half"), false);
});

Deno.test("decodeResourceMetrics() uses the scrape time for samples without a timestamp", () => {
  const b = decodeResourceMetrics(
    "node_cpu_usage_seconds_total 10\nnode_memory_working_set_bytes 100\n",
    1234,
  );
  assert.equal(b.node!.timestampMs, 1234);
  assert.equal(decodeResourceMetrics("node_cpu_usage_seconds_total 10\n", 1).node, undefined);
  assert.throws(() => decodeResourceMetrics("not a sample line {\n", 1), SyntaxError);
});
