import assert from "node:assert/strict";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { containersToRun } from "../../../nodeagent/pods/containers_to_run.ts";
import type { ContainerState, ContainerStatus } from "../../../nodeagent/runtime/runtime.ts";

const RUNNING: ContainerState = { running: { startedAt: "2026-01-01T00:00:00Z" } };
const exited = (exitCode: number): ContainerState => ({
  terminated: {
    exitCode,
    reason: exitCode ? "Error" : "Completed",
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "2026-01-01T00:00:01Z",
  },
});

function status(name: string, state: ContainerState): ContainerStatus {
  return { id: name, name, pod: { namespace: "d", name: "p", uid: "u" }, state, restartCount: 0 };
}

const pod = {
  metadata: { name: "p", namespace: "d", uid: "u" },
  spec: {
    initContainers: [
      { name: "setup" },
      { name: "proxy", restartPolicy: "Always" },
      { name: "migrate" },
    ],
    containers: [{ name: "app" }],
    ephemeralContainers: [{ name: "debugger" }],
  },
} as unknown as KubeObject;

function names(current: ContainerStatus[], policy = "Always"): string[] {
  return containersToRun(pod, current, policy).map(({ c, policy }) => `${c.name}:${policy}`);
}

Deno.test("containersToRun() runs init containers in order, keeps sidecars, then the rest", async (t) => {
  await t.step("the first init container first", () => {
    assert.deepEqual(names([]), ["setup:OnFailure"]);
  });
  await t.step("nothing new while an init container runs", () => {
    assert.deepEqual(names([status("setup", RUNNING)]), []);
  });
  await t.step("a failed init container is retried (with Never, its policy says not)", () => {
    assert.deepEqual(names([status("setup", exited(1))]), ["setup:OnFailure"]);
    assert.deepEqual(names([status("setup", exited(1))], "Never"), ["setup:Never"]);
  });
  await t.step("a sidecar starts and must run before the next init container", () => {
    assert.deepEqual(names([status("setup", exited(0))]), ["proxy:Always"]);
    assert.deepEqual(names([status("setup", exited(0)), status("proxy", RUNNING)]), [
      "proxy:Always",
      "migrate:OnFailure",
    ]);
  });
  await t.step("once every init container completed: sidecars, containers, ephemerals", () => {
    const done = [
      status("setup", exited(0)),
      status("proxy", RUNNING),
      status("migrate", exited(0)),
    ];
    assert.deepEqual(names(done), ["proxy:Always", "app:Always", "debugger:Never"]);
  });
});
