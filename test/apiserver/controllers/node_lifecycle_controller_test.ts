import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import {
  NodeLifecycleController,
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
} from "../../../apiserver/controllers/node_lifecycle_controller.ts";
import type { Store } from "../../../apiserver/registry/generic/store.ts";
import { openRegistryHarness } from "../../support/registry_harness.ts";

class ManualClock {
  t = Date.UTC(2026, 0, 1);
  now(): number {
    return this.t;
  }
}

async function setup() {
  const h = await openRegistryHarness("node-lifecycle-");
  await h.store("", "v1", "namespaces").create("", { metadata: { name: "kube-node-lease" } });
  const clock = new ManualClock();
  const controller = new NodeLifecycleController({
    registry: h.registry,
    gracePeriodMs: 40_000,
    clock,
  });
  const nodes = h.store("", "v1", "nodes");
  const leases = h.store("coordination.k8s.io", "v1", "leases");
  return { clock, controller, nodes, leases, close: () => h.close() };
}

function condition(type: string, status: string, at: string) {
  return { type, status, reason: "r", message: "m", lastHeartbeatTime: at, lastTransitionTime: at };
}

function nodeWith(name: string, ready: string, at: string): KubeObject {
  return {
    metadata: { name },
    status: {
      conditions: ["MemoryPressure", "DiskPressure", "PIDPressure"].map((t) =>
        condition(t, "False", at)
      ).concat([condition("Ready", ready, at), condition("NetworkUnavailable", "False", at)]),
    },
  };
}

function conditionsOf(n: KubeObject): Record<string, string> {
  const cs = ((n.status ?? {}) as { conditions: { type: string; status: string }[] }).conditions;
  return Object.fromEntries(cs.map((c) => [c.type, c.status]));
}

function taintsOf(n: KubeObject): string[] {
  const ts = ((n.spec ?? {}) as { taints?: { key: string; effect: string }[] }).taints ?? [];
  return ts.map((t) => `${t.key}:${t.effect}`).sort();
}

async function renew(store: Store, name: string, at: number) {
  const renewTime = new Date(at).toISOString();
  try {
    const l = await store.get("kube-node-lease", name);
    await store.update("kube-node-lease", name, {
      ...l,
      spec: { ...(l.spec as object), renewTime },
    });
  } catch {
    await store.create("kube-node-lease", {
      metadata: { name, namespace: "kube-node-lease" },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
    });
  }
}

Deno.test("NodeLifecycleController.monitor() marks silent nodes Unknown and taints them, and clears taints on recovery", async (t) => {
  const s = await setup();
  try {
    const at = new Date(s.clock.t).toISOString().replace(/\.\d+Z$/, "Z");
    await s.nodes.create("", nodeWith("n1", "True", at));
    await renew(s.leases, "n1", s.clock.t);

    await t.step("within the grace period nothing changes", async () => {
      await s.controller.monitor();
      s.clock.t += 39_000;
      await s.controller.monitor();
      const n = await s.nodes.get("", "n1");
      assert.equal(conditionsOf(n).Ready, "True");
      assert.deepEqual(taintsOf(n), []);
    });

    await t.step("a renewed lease keeps the node Ready past the grace period", async () => {
      await renew(s.leases, "n1", s.clock.t);
      await s.controller.monitor();
      s.clock.t += 30_000;
      await s.controller.monitor();
      assert.equal(conditionsOf(await s.nodes.get("", "n1")).Ready, "True");
    });

    await t.step("silence past the grace period: Unknown and unreachable taints", async () => {
      s.clock.t += 11_000;
      await s.controller.monitor();
      const n = await s.nodes.get("", "n1");
      const cs = conditionsOf(n);
      assert.deepEqual(
        [cs.Ready, cs.MemoryPressure, cs.DiskPressure, cs.PIDPressure, cs.NetworkUnavailable],
        ["Unknown", "Unknown", "Unknown", "Unknown", "False"],
      );
      assert.deepEqual(taintsOf(n), [
        `${TAINT_UNREACHABLE}:NoExecute`,
        `${TAINT_UNREACHABLE}:NoSchedule`,
      ]);
      await s.controller.monitor(); // idempotent
      assert.deepEqual(taintsOf(await s.nodes.get("", "n1")), taintsOf(n));
    });

    await t.step("the node posting Ready again removes the taints", async () => {
      const n = await s.nodes.get("", "n1");
      const later = new Date(s.clock.t).toISOString().replace(/\.\d+Z$/, "Z");
      await s.nodes.update("", "n1", { ...n, status: nodeWith("n1", "True", later).status }, {
        subresource: "status",
      });
      await renew(s.leases, "n1", s.clock.t);
      await s.controller.monitor();
      assert.deepEqual(taintsOf(await s.nodes.get("", "n1")), []);
    });
  } finally {
    await s.close();
  }
});

Deno.test("NodeLifecycleController.monitor() taints a node not-ready after Ready=False for the grace period", async () => {
  const s = await setup();
  try {
    const at = new Date(s.clock.t).toISOString().replace(/\.\d+Z$/, "Z");
    await s.nodes.create("", nodeWith("n2", "False", at));
    await s.controller.monitor();
    assert.deepEqual(taintsOf(await s.nodes.get("", "n2")), []);
    for (let i = 0; i < 4; i++) {
      s.clock.t += 10_000;
      await renew(s.leases, "n2", s.clock.t); // heartbeats keep coming
      await s.controller.monitor();
    }
    const n = await s.nodes.get("", "n2");
    assert.equal(conditionsOf(n).Ready, "False");
    assert.deepEqual(taintsOf(n), [
      `${TAINT_NOT_READY}:NoExecute`,
      `${TAINT_NOT_READY}:NoSchedule`,
    ]);
  } finally {
    await s.close();
  }
});
