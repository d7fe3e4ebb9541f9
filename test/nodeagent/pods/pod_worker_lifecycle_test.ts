/**
 * The pod worker's probes, hooks and termination on a fake runtime and clock, its pods by
 * watch from the real API server.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import type { EventObject, EventRecorder } from "../../../nodeagent/events/event_recorder.ts";
import { PodWorker } from "../../../nodeagent/pods/pod_worker.ts";
import { WatchPodSource } from "../../../nodeagent/pods/watch_pod_source.ts";
import { startTestServer, type TestServer } from "../../support/test_server.ts";
import { AGENT_POLL } from "../_agent_process.ts";
import { eventually } from "../../support/eventually.ts";
import { FakeRuntime } from "./_fake_runtime.ts";

const NODE = "lifecycle-node";
const PODS = { version: "v1", resource: "pods", namespace: "default" };

/** Records events (a fake of the API server's event sink). */
class Events implements EventRecorder {
  readonly seen: string[] = [];
  event(_obj: EventObject, type: string, reason: string, message: string): void {
    this.seen.push(`${type} ${reason} ${message}`);
  }
}

function setup(ts: TestServer) {
  const clock = new FakeClock();
  const runtime = new FakeRuntime(clock);
  const events = new Events();
  const worker = new PodWorker({
    client: ts.client,
    runtime,
    source: new WatchPodSource({
      client: ts.client,
      nodeName: NODE,
      clock,
      watchTimeoutSeconds: 60,
    }),
    nodeName: NODE,
    hostIP: "10.0.0.7",
    clock,
    recorder: events,
    resyncMs: 3_600_000,
  });
  worker.start();
  /** One pass, then every probe, kill and hook it started, then one more pass. */
  const settle = async () => {
    await worker.syncNow();
    await worker.idle();
    await worker.syncNow();
  };
  const create = async (name: string, container: Record<string, unknown>, spec = {}) => {
    const made = await ts.client.create(PODS, {
      metadata: { name, namespace: "default" },
      spec: {
        nodeName: NODE,
        containers: [{ name: "app", image: "x", command: ["sleep", "600"], ...container }],
        ...spec,
      },
    } as KubeObject);
    await eventually(`${name} started`, async () => {
      await worker.syncNow();
      return runtime.find(made.metadata.uid!, "app") ?? undefined;
    }, AGENT_POLL);
    return made;
  };
  return { clock, runtime, events, worker, settle, create };
}

Deno.test("PodWorker runs probes, hooks and graceful termination", async (t) => {
  const ts = await startTestServer();
  const h = setup(ts);
  try {
    await t.step(
      "a failed liveness probe kills with the probe's grace period and restarts",
      async () => {
        h.runtime.execExitCodes.set("bad", 1);
        const made = await h.create("live", {
          livenessProbe: {
            exec: { command: ["bad"] },
            periodSeconds: 1,
            failureThreshold: 1,
            terminationGracePeriodSeconds: 7,
          },
        });
        const first = h.runtime.find(made.metadata.uid!, "app")!;
        await h.settle(); // probe fails, kill
        await h.settle(); // restart
        assert.deepEqual(h.runtime.callsOf("stopContainer").filter(([id]) => id === first.id), [
          [first.id, 7_000],
        ]);
        assert.equal(h.runtime.find(made.metadata.uid!, "app")!.restartCount, 1);
        assert.ok(h.events.seen.includes("Warning Unhealthy Liveness probe failed: bad failed"));
        assert.ok(
          h.events.seen.includes(
            "Normal Killing Container app failed liveness probe, will be restarted",
          ),
          h.events.seen.join("\n"),
        );
      },
    );

    await t.step("readiness sets ready and the Ready condition", async () => {
      await h.create("ready", { readinessProbe: { exec: { command: ["ok"] }, periodSeconds: 1 } });
      type St = {
        containerStatuses?: { ready: boolean }[];
        conditions?: { type: string; status: string }[];
      };
      const st = await eventually("ready", async () => {
        await h.settle();
        const p = await ts.client.get<KubeObject>({ ...PODS, name: "ready" });
        const st = p.status as St;
        return st.containerStatuses?.[0]?.ready ? st : undefined;
      }, AGENT_POLL);
      assert.equal(st.conditions?.find((c) => c.type === "Ready")?.status, "True");
      assert.equal(st.conditions?.find((c) => c.type === "ContainersReady")?.status, "True");
    });

    await t.step("a failed postStart hook is an event and kills the container", async () => {
      h.runtime.execExitCodes.set("nope", 2);
      const made = await h.create("poststart", {
        lifecycle: { postStart: { exec: { command: ["nope"] } } },
      }, { restartPolicy: "Never", terminationGracePeriodSeconds: 3 });
      const c = h.runtime.find(made.metadata.uid!, "app")!;
      await h.settle();
      assert.ok("terminated" in h.runtime.containers.get(c.id)!.state);
      assert.ok(
        h.events.seen.some((e) => e.startsWith("Warning FailedPostStartHook Exec lifecycle hook")),
        h.events.seen.join("\n"),
      );
      assert.ok(h.events.seen.includes("Normal Killing FailedPostStartHook"));
    });

    await t.step(
      "deletion runs preStop, then stops with the rest of the grace period",
      async () => {
        const made = await h.create("graceful", {
          lifecycle: { preStop: { exec: { command: ["drain"] } } },
        }, { terminationGracePeriodSeconds: 30 });
        const c = h.runtime.find(made.metadata.uid!, "app")!;
        await ts.client.delete({ ...PODS, name: "graceful" }, { gracePeriodSeconds: 12 });
        await eventually("the pod deleted by the worker", async () => {
          await h.settle();
          try {
            await ts.client.get({ ...PODS, name: "graceful" });
            return false;
          } catch {
            return true;
          }
        }, AGENT_POLL);
        const mine = h.runtime.calls.filter((x) => x.args[0] === c.id).map((x) => x.method);
        assert.deepEqual(mine, ["execSync", "stopContainer", "removeContainer"]);
        assert.deepEqual(h.runtime.callsOf("stopContainer").filter(([id]) => id === c.id), [
          [c.id, 12_000],
        ]);
        assert.ok(h.events.seen.includes("Normal Killing Stopping container app"));
      },
    );
  } finally {
    await h.worker.stop();
    await ts.close();
  }
});
