import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { computeProxyTable, readyEndpoints } from "../../../nodeagent/proxy/proxy_table.ts";

function service(name: string, spec: Record<string, unknown>, ns = "default"): KubeObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name, namespace: ns }, spec };
}

function slice(
  name: string,
  svc: string,
  ports: Record<string, unknown>[],
  endpoints: Record<string, unknown>[],
  ns = "default",
): KubeObject {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: ns, labels: { "kubernetes.io/service-name": svc } },
    addressType: "IPv4",
    ports,
    endpoints,
  } as KubeObject;
}

Deno.test("computeProxyTable() maps each Service port to the ready endpoints of its slices", () => {
  const web = service("web", {
    type: "NodePort",
    clusterIP: "10.96.0.10",
    clusterIPs: ["10.96.0.10"],
    ports: [
      { name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 },
      { name: "dns", protocol: "UDP", port: 53, nodePort: 30053 },
      { name: "sctp", protocol: "SCTP", port: 99 },
    ],
  });
  const slices = [
    slice("web-a", "web", [{ name: "http", port: 8080, protocol: "TCP" }], [
      { addresses: ["10.1.0.2"], conditions: { ready: true } },
      { addresses: ["10.1.0.1"] }, // ready unset counts as ready
      { addresses: ["10.1.0.3"], conditions: { ready: false, serving: true, terminating: true } },
    ]),
    slice("web-b", "web", [
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "dns", port: 5353, protocol: "UDP" },
    ], [{ addresses: ["10.1.0.2"], conditions: { ready: true } }]),
    slice("web-other-ns", "web", [{ name: "http", port: 1 }], [{ addresses: ["9.9.9.9"] }], "x"),
  ];
  const table = computeProxyTable([web], slices);
  assert.deepEqual(table, [
    {
      name: "default/web:dns",
      protocol: "UDP",
      clusterIPs: ["10.96.0.10"],
      port: 53,
      targetPort: 53, // unset: the port itself
      nodePort: 30053,
      endpoints: [{ ip: "10.1.0.2", port: 5353 }],
    },
    {
      name: "default/web:http",
      protocol: "TCP",
      clusterIPs: ["10.96.0.10"],
      port: 80,
      targetPort: 8080,
      nodePort: 30080,
      endpoints: [{ ip: "10.1.0.1", port: 8080 }, { ip: "10.1.0.2", port: 8080 }],
    },
  ]);
});

Deno.test("computeProxyTable() skips ExternalName and headless IPs and keeps ClientIP affinity", () => {
  const table = computeProxyTable([
    service("ext", { type: "ExternalName", externalName: "example.com", ports: [{ port: 80 }] }),
    service("headless", { clusterIP: "None", ports: [{ port: 80 }] }),
    service("sticky", {
      clusterIP: "10.96.0.11",
      ports: [{ port: 443 }],
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
    }),
    service("sticky-default", {
      clusterIP: "10.96.0.12",
      ports: [{ port: 443 }],
      sessionAffinity: "ClientIP",
    }),
  ], [slice("s", "sticky", [{ port: 8443 }], [{ addresses: ["10.1.0.9"] }])]);
  assert.deepEqual(table.map((r) => [r.name, r.clusterIPs, r.affinitySeconds, r.endpoints]), [
    ["default/headless:", [], undefined, []],
    ["default/sticky-default:", ["10.96.0.12"], 10800, []],
    ["default/sticky:", ["10.96.0.11"], 60, [{ ip: "10.1.0.9", port: 8443 }]],
  ]);
});

Deno.test("computeProxyTable() gives a ClusterIP Service no node port and ignores deleted slices", () => {
  const svc = service("c", { type: "ClusterIP", clusterIP: "10.96.0.5", ports: [{ port: 80 }] });
  const s = slice("c1", "c", [{ port: 80 }], [{ addresses: ["10.1.0.1"] }]);
  s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  const [rule] = computeProxyTable([svc], [s]);
  assert.equal(rule.nodePort, undefined);
  assert.deepEqual(rule.endpoints, []);
});

Deno.test("readyEndpoints() matches the port by name and protocol and skips FQDN slices", () => {
  const fqdn = slice("f", "x", [{ name: "a", port: 1 }], [{ addresses: ["example.com"] }]);
  (fqdn as unknown as Record<string, unknown>).addressType = "FQDN";
  const s = slice("s", "x", [{ name: "a", port: 2, protocol: "UDP" }], [{
    addresses: ["1.2.3.4"],
  }]);
  assert.deepEqual(readyEndpoints([fqdn, s], "a", "TCP"), []);
  assert.deepEqual(readyEndpoints([fqdn, s], "a", "UDP"), [{ ip: "1.2.3.4", port: 2 }]);
});
