import assert from "node:assert/strict";
import { KubernetesServiceController } from "../../../apiserver/controllers/kubernetes_service_controller.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";

Deno.test("KubernetesServiceController.reconcile() keeps the kubernetes EndpointSlice beside the Endpoints", async () => {
  await withRegistryHarness("kubesvc-slice", async (h) => {
    const controller = (ip: string) =>
      new KubernetesServiceController({
        registry: h.registry,
        clusterIP: "10.96.0.1",
        advertiseAddress: ip,
        securePort: 6443,
      });
    await controller("10.0.0.5").reconcile();
    const slices = h.store("discovery.k8s.io", "v1", "endpointslices");
    const slice = await slices.get("default", "kubernetes");
    assert.deepEqual(slice.metadata.labels, { "kubernetes.io/service-name": "kubernetes" });
    assert.equal(slice.addressType, "IPv4");
    assert.deepEqual(slice.endpoints, [{ addresses: ["10.0.0.5"], conditions: { ready: true } }]);
    assert.deepEqual(slice.ports, [{ name: "https", port: 6443, protocol: "TCP" }]);
    // A second API server adds its own address; a repeat changes nothing.
    await controller("10.0.0.4").reconcile();
    const rv = (await slices.get("default", "kubernetes")).metadata.resourceVersion;
    await controller("10.0.0.4").reconcile();
    const both = await slices.get("default", "kubernetes");
    assert.equal(both.metadata.resourceVersion, rv);
    assert.deepEqual(
      (both.endpoints as { addresses: string[] }[]).map((e) => e.addresses[0]),
      ["10.0.0.4", "10.0.0.5"],
    );
    const endpoints = await h.store("", "v1", "endpoints").get("default", "kubernetes");
    assert.equal((endpoints.subsets as { addresses: unknown[] }[])[0].addresses.length, 2);
  });
});

Deno.test("KubernetesServiceController.reconcile() writes no EndpointSlice for a loopback address", async () => {
  await withRegistryHarness("kubesvc-loop", async (h) => {
    await new KubernetesServiceController({
      registry: h.registry,
      clusterIP: "10.96.0.1",
      advertiseAddress: "127.0.0.1",
      securePort: 6443,
    }).reconcile();
    const list = await h.store("discovery.k8s.io", "v1", "endpointslices").list("default", {
      plan: { mode: "latest" },
    });
    assert.equal(list.items.length, 0);
    await h.store("", "v1", "endpoints").get("default", "kubernetes");
  });
});
