import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { LeaseController, microTime } from "../../../nodeagent/lease/lease_controller.ts";
import { startTestServer } from "../../support/test_server.ts";

const LEASE = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  namespace: "kube-node-lease",
  name: "n1",
};

Deno.test("microTime() formats RFC 3339 with microseconds", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), "2026-01-02T03:04:05.678000Z");
});

Deno.test("LeaseController.sync() creates an owned lease, renews it and re-reads it on 409", async (t) => {
  const ts = await startTestServer();
  const clock = new FakeClock();
  try {
    const node = await ts.client.create<KubeObject>({ version: "v1", resource: "nodes" }, {
      metadata: { name: "n1" },
    });
    const renewals: number[] = [];
    const c = new LeaseController({
      client: ts.client,
      nodeName: "n1",
      clock,
      onRenew: (ms) => renewals.push(ms),
    });
    await t.step("first sync creates the lease owned by the Node", async () => {
      await c.sync();
      const lease = await ts.client.get<KubeObject>(LEASE);
      const spec = lease.spec as Record<string, unknown>;
      assert.equal(spec.holderIdentity, "n1");
      assert.equal(spec.leaseDurationSeconds, 40);
      assert.equal(spec.renewTime, microTime(clock.now()));
      assert.deepEqual(lease.metadata.ownerReferences, [
        { apiVersion: "v1", kind: "Node", name: "n1", uid: node.metadata.uid },
      ]);
    });
    await t.step("next sync updates the cached lease's renewTime", async () => {
      clock.advance(10_000);
      await c.sync();
      const spec = (await ts.client.get<KubeObject>(LEASE)).spec as Record<string, unknown>;
      assert.equal(spec.renewTime, microTime(clock.now()));
    });
    await t.step("a lease changed by someone else is re-read and renewed", async () => {
      const lease = await ts.client.get<KubeObject>(LEASE);
      await ts.client.update(LEASE, {
        ...lease,
        metadata: { ...lease.metadata, labels: { touched: "yes" } },
      });
      clock.advance(10_000);
      await c.sync();
      const after = await ts.client.get<KubeObject>(LEASE);
      assert.equal((after.spec as Record<string, unknown>).renewTime, microTime(clock.now()));
      assert.equal(after.metadata.labels?.touched, "yes");
    });
    assert.equal(renewals.length, 3);
    await c.stop();
  } finally {
    await ts.close();
  }
});
