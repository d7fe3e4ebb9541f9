import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { podPhase, podStatus } from "../../../nodeagent/pods/pod_status.ts";
import type { ContainerState, ContainerStatus } from "../../../nodeagent/runtime/runtime.ts";

const RUNNING: ContainerState = { running: { startedAt: "2026-01-01T00:00:00Z" } };
const term = (exitCode: number): ContainerState => ({
  terminated: {
    exitCode,
    reason: exitCode ? "Error" : "Completed",
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:00:01Z",
  },
});
const st = (state: ContainerState, lastState: ContainerState | Record<string, never> = {}) => ({
  name: "c",
  state,
  lastState,
  ready: false,
  restartCount: 0,
  started: false,
});

Deno.test("podPhase() follows the kubelet's getPhase", async (t) => {
  const waiting: ContainerState = { waiting: { reason: "ContainerCreating" } };
  const crashLoop: ContainerState = { waiting: { reason: "CrashLoopBackOff" } };
  const cases: [string, string, ReturnType<typeof st>[], ReturnType<typeof st>[], string][] = [
    ["a waiting container", "Always", [], [st(waiting)], "Pending"],
    ["a running container", "Always", [], [st(RUNNING)], "Running"],
    ["crash loop (stopped) with Always", "Always", [], [st(crashLoop, term(1))], "Running"],
    ["all succeeded with OnFailure", "OnFailure", [], [st(term(0))], "Succeeded"],
    ["a failure with Never", "Never", [], [st(term(0)), st(term(2))], "Failed"],
    ["a failure with OnFailure", "OnFailure", [], [st(term(2))], "Running"],
    ["an init container running", "Always", [st(RUNNING)], [st(waiting)], "Pending"],
    ["a failed init container with Never", "Never", [st(term(1))], [st(waiting)], "Failed"],
    ["init done", "Always", [st(term(0))], [st(RUNNING)], "Running"],
  ];
  for (const [name, policy, inits, cs, want] of cases) {
    await t.step(name, () => assert.equal(podPhase(policy, inits, cs), want));
  }
});

Deno.test("podStatus() reports readiness from the view and kube's condition messages", () => {
  const pod = {
    metadata: { name: "p", namespace: "default", uid: "u" },
    spec: {
      initContainers: [{ name: "init", image: "x" }],
      containers: [{ name: "a", image: "x" }, { name: "b", image: "x" }],
    },
  } as unknown as KubeObject;
  const mk = (name: string, state: ContainerState): ContainerStatus => ({
    id: `id-${name}`,
    name,
    pod: { namespace: "default", name: "p", uid: "u" },
    state,
    restartCount: 0,
  });
  const view = {
    waiting: new Map(),
    lastState: new Map(),
    readiness: (c: { name: string }) => ({ ready: c.name === "a", started: true }),
  };
  const s = podStatus(pod, [mk("init", term(0)), mk("a", RUNNING), mk("b", RUNNING)], view, {
    hostIP: "10.1.2.3",
    now: Date.UTC(2026, 0, 1),
  });
  assert.equal(s.phase, "Running");
  assert.deepEqual(s.podIPs, [{ ip: "10.1.2.3" }]);
  assert.deepEqual(s.hostIPs, [{ ip: "10.1.2.3" }]);
  const conds = Object.fromEntries(
    (s.conditions as { type: string }[]).map((c) => [c.type, c]),
  ) as Record<string, Record<string, unknown>>;
  assert.equal(conds.Initialized.status, "True");
  assert.equal(conds.Ready.status, "False");
  assert.equal(conds.Ready.reason, "ContainersNotReady");
  assert.equal(conds.Ready.message, "containers with unready status: [b]");
  assert.equal(conds.ContainersReady.message, "containers with unready status: [b]");
  const cs = s.containerStatuses as { name: string; ready: boolean; started: boolean }[];
  assert.deepEqual(cs.map((c) => [c.name, c.ready, c.started]), [["a", true, true], [
    "b",
    false,
    true,
  ]]);
  assert.equal((s.initContainerStatuses as unknown[]).length, 1);
});
