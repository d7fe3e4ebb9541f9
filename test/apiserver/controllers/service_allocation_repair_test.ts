import assert from "node:assert/strict";
import { ServiceAllocationRepair } from "../../../apiserver/controllers/service_allocation_repair.ts";
import {
  CLUSTER_IP_PREFIX,
  NODE_PORT_PREFIX,
} from "../../../apiserver/registry/core/services/allocator.ts";
import { startTestServer } from "../../support/test_server.ts";

Deno.test("ServiceAllocationRepair.repair() releases leaked claims and reclaims missing ones", async () => {
  const t = await startTestServer();
  try {
    const storage = t.server.storage;
    const services = t.server.registry.lookup("", "v1", "services")!;
    const svc = await services.create("default", {
      metadata: { name: "web", namespace: "default" },
      spec: { type: "NodePort", ports: [{ port: 80 }] },
    });
    const spec = svc.spec as { clusterIP: string; ports: { nodePort: number }[] };
    // A leak: a claim nobody holds. A loss: the Service's NodePort claim is gone.
    await storage.create(`${CLUSTER_IP_PREFIX}10.96.0.77`, "default/gone");
    const portKey = `${NODE_PORT_PREFIX}${spec.ports[0].nodePort}`;
    await storage.delete(portKey, 0);
    const repair = new ServiceAllocationRepair({
      storage,
      services,
      prefixes: [CLUSTER_IP_PREFIX, NODE_PORT_PREFIX],
    });
    const result = await repair.repair();
    assert.deepEqual(result, {
      released: [`${CLUSTER_IP_PREFIX}10.96.0.77`],
      reclaimed: [portKey],
    });
    assert.equal((await storage.get(portKey))?.value, "default/web");
    assert.ok(await storage.get(`${CLUSTER_IP_PREFIX}${spec.clusterIP}`));
    assert.ok(await storage.get(`${CLUSTER_IP_PREFIX}10.96.0.1`), "the kubernetes Service's");
    assert.deepEqual(await repair.repair(), { released: [], reclaimed: [] });
  } finally {
    await t.close();
  }
});
