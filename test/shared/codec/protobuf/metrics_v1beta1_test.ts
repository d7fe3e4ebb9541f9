import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../../../shared/codec/protobuf/mod.ts";

const NODE = {
  apiVersion: "metrics.k8s.io/v1beta1",
  kind: "NodeMetrics",
  metadata: {
    name: "n1",
    creationTimestamp: "2026-11-25T03:00:00Z",
    labels: { "kubernetes.io/hostname": "n1" },
  },
  timestamp: "2026-11-25T02:59:58Z",
  window: "20.064s",
  usage: { cpu: "329087452n", memory: "2748180Ki" },
};

const POD = {
  apiVersion: "metrics.k8s.io/v1beta1",
  kind: "PodMetrics",
  metadata: { name: "web", namespace: "default", creationTimestamp: "2026-11-25T03:00:00Z" },
  timestamp: "2026-11-25T02:59:58Z",
  window: "1m0.5s",
  containers: [{ name: "app", usage: { cpu: "5m", memory: "12Mi" } }],
};

Deno.test("NodeMetrics and PodMetrics round-trip through Protobuf, window as a Go duration", () => {
  for (const obj of [NODE, POD]) {
    const bytes = encodeObject(obj);
    assert.deepEqual(decodeObject(bytes), obj);
  }
});
