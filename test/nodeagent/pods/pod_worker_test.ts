import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { RestClient } from "../../../shared/client/rest_client.ts";
import { FakeClock } from "../../../nodeagent/clock/fake_clock.ts";
import { PodWorker } from "../../../nodeagent/pods/pod_worker.ts";
import { goDuration } from "../../../nodeagent/pods/restart_backoff.ts";
import { WatchPodSource } from "../../../nodeagent/pods/watch_pod_source.ts";
import { CreateContainerError, ImagePullError } from "../../../nodeagent/runtime/runtime.ts";
import { startTestServer, type TestServer } from "../../support/test_server.ts";
import { AGENT_POLL } from "../_agent_process.ts";
import { eventually } from "../../support/eventually.ts";
import { FakeRuntime } from "./_fake_runtime.ts";

const NODE = "worker-node";
const PODS = { version: "v1", resource: "pods", namespace: "default" };

type Status = {
  phase?: string;
  containerStatuses?: {
    name: string;
    state: Record<string, Record<string, unknown>>;
    lastState: Record<string, Record<string, unknown>>;
    restartCount: number;
    containerID?: string;
    ready: boolean;
  }[];
  conditions?: { type: string; status: string }[];
  hostIP?: string;
  startTime?: string;
};

function pod(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      nodeName: NODE,
      containers: [{ name: "main", image: "busybox:1.36", command: ["sleep", "600"] }],
      ...spec,
    },
  } as KubeObject;
}

/** A worker on a fake runtime and clock, its pods by watch from the real API server. */
interface Harness {
  clock: FakeClock;
  runtime: FakeRuntime;
  worker: PodWorker;
  client: RestClient;
  /** Creates a pod and waits until the worker has started its first container. */
  create(p: KubeObject): Promise<KubeObject>;
  status(name: string): Promise<Status>;
  stop(): Promise<void>;
}

function harness(ts: TestServer, client = ts.client): Harness {
  const clock = new FakeClock();
  const runtime = new FakeRuntime(clock);
  const worker = new PodWorker({
    client,
    runtime,
    source: new WatchPodSource({ client, nodeName: NODE, clock, watchTimeoutSeconds: 60 }),
    nodeName: NODE,
    hostIP: "10.0.0.7",
    clock,
    // Passes run when the test asks (and on pod events), not on a timer.
    resyncMs: 3_600_000,
  });
  worker.start();
  return {
    clock,
    runtime,
    worker,
    client,
    async create(p) {
      const made = await ts.client.create(PODS, p);
      await eventually(`the worker to see ${made.metadata.name}`, async () => {
        await worker.syncNow();
        return runtime.callsOf("startContainer").some(([info]) =>
          (info as { uid: string }).uid === made.metadata.uid
        ) || undefined;
      }, AGENT_POLL);
      return made;
    },
    async status(name) {
      return (await ts.client.get<KubeObject>({ ...PODS, name })).status as Status;
    },
    async stop() {
      await worker.stop();
    },
  };
}

Deno.test("goDuration() formats back-offs as the kubelet does", async (t) => {
  const cases: [number, string][] = [
    [10_000, "10s"],
    [80_000, "1m20s"],
    [160_000, "2m40s"],
    [300_000, "5m0s"],
  ];
  for (const [ms, want] of cases) await t.step(want, () => assert.equal(goDuration(ms), want));
});

Deno.test("PodWorker runs this node's pods on the runtime", async (t) => {
  const ts = await startTestServer();
  const h = harness(ts);
  try {
    await t.step("starts the containers and writes the pod status", async () => {
      const made = await h.create(pod("starts"));
      const [info, spec] = h.runtime.callsOf("startContainer")[0] as [
        Record<string, unknown>,
        Record<string, unknown>,
      ];
      assert.equal(info.uid, made.metadata.uid);
      assert.deepEqual(spec.command, ["sleep", "600"]);
      await h.worker.syncNow();
      const st = await h.status("starts");
      assert.equal(st.phase, "Running");
      assert.equal(st.hostIP, "10.0.0.7");
      assert.ok(st.startTime);
      const cs = st.containerStatuses![0];
      assert.ok("running" in cs.state, JSON.stringify(cs));
      assert.equal(cs.ready, true);
      assert.equal(cs.restartCount, 0);
      assert.equal(cs.containerID, h.runtime.find(made.metadata.uid!, "main")!.id);
      assert.equal(st.conditions!.find((c) => c.type === "Ready")!.status, "True");
    });

    await t.step("writes status only when it changes", async () => {
      const before = await ts.client.get<KubeObject>({ ...PODS, name: "starts" });
      await h.worker.syncNow();
      await h.worker.syncNow();
      const after = await ts.client.get<KubeObject>({ ...PODS, name: "starts" });
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
    });

    await t.step("restarts a crashed container with the kubelet's back-off", async () => {
      const made = await h.create(pod("crashy"));
      const uid = made.metadata.uid!;
      const starts = () =>
        h.runtime.callsOf("startContainer").filter(([i]) => (i as { uid: string }).uid === uid)
          .length;
      const crash = async () => {
        h.runtime.exit(h.runtime.find(uid, "main")!.id, 1);
        await h.worker.syncNow();
      };
      // The first crash restarts at once.
      await crash();
      assert.equal(starts(), 2);
      let cs = (await h.status("crashy")).containerStatuses![0];
      assert.ok("running" in cs.state);
      assert.equal(cs.restartCount, 1);
      assert.equal(cs.lastState.terminated.exitCode, 1);
      // Then 10 s, 20 s, 40 s from the crash, shown as CrashLoopBackOff.
      for (const wait of [10_000, 20_000, 40_000]) {
        await crash();
        cs = (await h.status("crashy")).containerStatuses![0];
        assert.equal(cs.state.waiting?.reason, "CrashLoopBackOff", JSON.stringify(cs));
        assert.equal(
          cs.state.waiting.message,
          `back-off ${wait / 1000}s restarting failed container=main pod=crashy_default(${uid})`,
        );
        const n = starts();
        h.clock.advance(wait - 1_000);
        await h.worker.syncNow();
        assert.equal(starts(), n, `no restart before ${wait} ms`);
        h.clock.advance(1_000);
        await h.worker.syncNow();
        assert.equal(starts(), n + 1, `a restart after ${wait} ms`);
        cs = (await h.status("crashy")).containerStatuses![0];
        assert.ok("running" in cs.state, JSON.stringify(cs));
      }
      // A crash long (over 10 min) after the last restart starts over at once.
      h.clock.advance(11 * 60_000);
      const n = starts();
      await crash();
      assert.equal(starts(), n + 1);
    });

    await t.step("follows restartPolicy", async (t) => {
      const cases: [string, string, number, string, number][] = [
        ["OnFailure, exit 0: Succeeded, no restart", "OnFailure", 0, "Succeeded", 1],
        ["OnFailure, exit 2: restarted", "OnFailure", 2, "Running", 2],
        ["Never, exit 2: Failed, no restart", "Never", 2, "Failed", 1],
      ];
      let i = 0;
      for (const [name, restartPolicy, code, phase, startCount] of cases) {
        await t.step(name, async () => {
          const made = await h.create(pod(`policy-${i++}`, { restartPolicy }));
          const uid = made.metadata.uid!;
          h.runtime.exit(h.runtime.find(uid, "main")!.id, code);
          await h.worker.syncNow();
          const starts = h.runtime.callsOf("startContainer")
            .filter(([info]) => (info as { uid: string }).uid === uid).length;
          assert.equal(starts, startCount);
          assert.equal((await h.status(made.metadata.name!)).phase, phase);
        });
      }
    });

    await t.step("retries a CreateContainerError every 10 s", async () => {
      h.runtime.failNextStart(
        new CreateContainerError('cannot load seccomp profile "/x/seccomp/p.json"'),
      );
      const made = await h.create(pod("create-error"));
      const uid = made.metadata.uid!;
      const attempts = () =>
        h.runtime.callsOf("startContainer").filter(([i]) => (i as { uid: string }).uid === uid)
          .length;
      await h.worker.syncNow();
      let cs = (await h.status("create-error")).containerStatuses![0];
      assert.deepEqual(cs.state, {
        waiting: {
          reason: "CreateContainerError",
          message: 'cannot load seccomp profile "/x/seccomp/p.json"',
        },
      });
      assert.equal((await h.status("create-error")).phase, "Pending");
      h.clock.advance(9_000);
      await h.worker.syncNow();
      assert.equal(attempts(), 1);
      h.clock.advance(1_000);
      await h.worker.syncNow();
      assert.equal(attempts(), 2);
      cs = (await h.status("create-error")).containerStatuses![0];
      assert.ok("running" in cs.state, JSON.stringify(cs));
    });

    await t.step("shows ErrImagePull, then ImagePullBackOff, backing off 10 s, 20 s", async () => {
      const pullError = () => new ImagePullError('Failed to pull image "nope:1": not found');
      h.runtime.failNextStart(pullError(), pullError());
      const made = await h.create(pod("pull-error", {
        containers: [{ name: "main", image: "nope:1" }],
      }));
      const uid = made.metadata.uid!;
      const attempts = () =>
        h.runtime.callsOf("startContainer").filter(([i]) => (i as { uid: string }).uid === uid)
          .length;
      const waiting = async () =>
        (await h.status("pull-error")).containerStatuses![0].state.waiting;
      await h.worker.syncNow();
      // The pass that saw the failure may have written ErrImagePull already; the next one
      // (still inside the back-off) shows ImagePullBackOff.
      await h.worker.syncNow();
      assert.deepEqual(await waiting(), {
        reason: "ImagePullBackOff",
        message: 'Back-off pulling image "nope:1"',
      });
      h.clock.advance(10_000);
      await h.worker.syncNow();
      assert.equal(attempts(), 2);
      assert.equal((await waiting())?.reason, "ErrImagePull");
      h.clock.advance(10_000);
      await h.worker.syncNow();
      assert.equal(attempts(), 2, "the second back-off is 20 s");
      h.clock.advance(10_000);
      await h.worker.syncNow();
      assert.equal(attempts(), 3);
      const cs = (await h.status("pull-error")).containerStatuses![0];
      assert.ok("running" in cs.state, JSON.stringify(cs));
    });

    await t.step("graceful deletion: stop with the grace period, then delete with 0", async () => {
      const made = await h.create(pod("leaving", { terminationGracePeriodSeconds: 7 }));
      const uid = made.metadata.uid!;
      const id = h.runtime.find(uid, "main")!.id;
      // The answer is the object marked for deletion (the worker may finish it at any time
      // after, so it is not read again).
      const marked = await ts.client.delete<KubeObject>({ ...PODS, name: "leaving" });
      assert.ok(marked.metadata.deletionTimestamp, "graceful: still there");
      await eventually("the pod to be gone", async () => {
        await h.worker.syncNow();
        const res = await ts.fetch(`/api/v1/namespaces/default/pods/leaving`);
        await res.body?.cancel();
        return res.status === 404 || undefined;
      }, AGENT_POLL);
      assert.deepEqual(h.runtime.callsOf("stopContainer").filter(([c]) => c === id), [[
        id,
        7_000,
      ]]);
      const order = h.runtime.calls
        .filter((c) => c.args[0] === id || c.args[0] === uid)
        .map((c) => c.method);
      assert.deepEqual(order, ["stopContainer", "removeContainer", "removePod"]);
      assert.equal(h.runtime.find(uid, "main"), undefined);
    });
  } finally {
    await h.stop();
    await ts.close();
  }
});

Deno.test("PodWorker stops orphaned containers only once the pod source has answered", async () => {
  const ts = await startTestServer();
  // A pod source that cannot list (a credential the server rejects) never answers.
  const denied = new RestClient({ ...ts.client.config, token: "not-a-valid-token" });
  const blind = harness(ts, denied);
  const orphanPod = { namespace: "default", name: "ghost", uid: "ghost-uid" };
  let h: Harness | undefined;
  try {
    const ghost = blind.runtime.add(orphanPod, "main");
    await blind.worker.syncNow();
    await blind.worker.syncNow();
    assert.equal(blind.worker.sourceReady, false);
    assert.deepEqual(blind.runtime.callsOf("stopContainer"), []);
    assert.deepEqual(blind.runtime.callsOf("removePod"), []);
    assert.ok("running" in blind.runtime.containers.get(ghost.id)!.state);
    await blind.stop();

    // The same containers under a worker whose source answers (with no pod "ghost").
    h = harness(ts);
    const worker = h;
    const kept = await h.create(pod("kept"));
    const ghost2 = h.runtime.add(orphanPod, "main");
    await eventually("the source's first answer", () => {
      return Promise.resolve(worker.worker.sourceReady || undefined);
    }, AGENT_POLL);
    await h.worker.syncNow();
    assert.deepEqual(h.runtime.callsOf("stopContainer"), [[ghost2.id, 0]]);
    // A pass already running when ghost2 appeared may also remove its sandbox (listPods comes
    // after listContainers): removal is idempotent, so once or twice, and only the ghost's.
    const removed = new Set(h.runtime.callsOf("removePod").map(([uid]) => uid));
    assert.deepEqual([...removed], ["ghost-uid"]);
    assert.equal(h.runtime.containers.has(ghost2.id), false);
    assert.ok(h.runtime.find(kept.metadata.uid!, "main"), "a bound pod's container stays");
  } finally {
    await blind.stop();
    await h?.stop();
    denied.close();
    await ts.close();
  }
});
