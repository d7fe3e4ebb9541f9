import assert from "node:assert/strict";
import {
  CheckpointNotSupportedError,
  CreateContainerError,
} from "../../../../nodeagent/runtime/runtime.ts";
import { CriRuntime, criSocketPath } from "../../../../nodeagent/runtime/cri/cri_runtime.ts";
import { type FakeCriServer, startFakeCriServer } from "./_fake_cri_server.ts";

const NS = 1_700_000_000_000_000_000n;

function fixture(fake: FakeCriServer): void {
  fake.state.sandboxes.push({
    id: "sb1",
    metadata: { name: "web", uid: "uid-1", namespace: "default", attempt: 0 },
    state: "SANDBOX_READY",
  });
  fake.state.containers.push(
    {
      id: "c-run",
      podSandboxId: "sb1",
      metadata: { name: "main", attempt: 2 },
      state: "CONTAINER_RUNNING",
      startedAt: String(NS),
      labels: { "io.kubernetes.container.name": "main", "io.kubernetes.pod.uid": "uid-1" },
      annotations: { "io.kubernetes.container.restartCount": "3" },
    },
    {
      id: "c-done",
      podSandboxId: "sb1",
      metadata: { name: "init", attempt: 1 },
      state: "CONTAINER_EXITED",
      startedAt: String(NS),
      finishedAt: String(NS + 2_000_000_000n),
      exitCode: 1,
    },
  );
}

async function withFake(fn: (fake: FakeCriServer, rt: CriRuntime, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cri-" });
  const fake = await startFakeCriServer(dir);
  const rt = new CriRuntime(`unix://${fake.socketPath}`);
  try {
    fixture(fake);
    await fn(fake, rt, dir);
  } finally {
    await rt.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("criSocketPath() accepts unix endpoints and rejects others", async (t) => {
  const cases: [string, string | RegExp][] = [
    ["unix:///run/containerd/containerd.sock", "/run/containerd/containerd.sock"],
    ["/run/crio/crio.sock", "/run/crio/crio.sock"],
    ["tcp://127.0.0.1:1234", /only unix sockets/],
    ["unix://relative.sock", /absolute socket path/],
  ];
  for (const [endpoint, want] of cases) {
    await t.step(endpoint, () => {
      if (typeof want === "string") assert.equal(criSocketPath(endpoint), want);
      else assert.throws(() => criSocketPath(endpoint), want);
    });
  }
});

Deno.test("CriRuntime speaks CRI to a runtime on a unix socket", async (t) => {
  await withFake(async (fake, rt, dir) => {
    await t.step("version() names the runtime", async () => {
      assert.equal(await rt.version(), "fakecri://1.2.3");
      assert.equal(rt.name, "fakecri");
    });

    await t.step("healthErrors() follows RuntimeReady", async () => {
      assert.deepEqual(await rt.healthErrors(), []);
      fake.state.runtimeReady = false;
      assert.deepEqual(await rt.healthErrors(), [
        "container runtime is down: FakeDown: the fake is down",
      ]);
      fake.state.runtimeReady = true;
    });

    await t.step("listPods() maps ListPodSandbox", async () => {
      assert.deepEqual(await rt.listPods(), [
        { id: "sb1", namespace: "default", name: "web", uid: "uid-1", ready: true },
      ]);
    });

    await t.step("listContainers() maps ListContainers and ContainerStatus", async () => {
      const list = await rt.listContainers();
      assert.deepEqual(list, [
        {
          id: "c-run",
          name: "main",
          pod: { namespace: "default", name: "web", uid: "uid-1" },
          state: { running: { startedAt: "2023-11-14T22:13:20Z" } },
          restartCount: 3,
        },
        {
          id: "c-done",
          name: "init",
          pod: { namespace: "default", name: "web", uid: "uid-1" },
          state: {
            terminated: {
              exitCode: 1,
              reason: "Error",
              startedAt: "2023-11-14T22:13:20Z",
              finishedAt: "2023-11-14T22:13:22Z",
            },
          },
          restartCount: 1,
        },
      ]);
      assert.ok(fake.calls.some((c) => c.method === "ContainerStatus"));
    });

    await t.step("containerStatus() of an unknown container is undefined", async () => {
      assert.equal(await rt.containerStatus("nope"), undefined);
      assert.equal((await rt.containerStatus("c-run"))?.name, "main");
    });

    await t.step("checkpointContainer() passes the location and timeout", async () => {
      const location = `${dir}/ckpt.tar`;
      await rt.checkpointContainer("c-run", {
        location,
        signal: new AbortController().signal,
        timeoutSeconds: 7,
      });
      const call = fake.calls.findLast((c) => c.method === "CheckpointContainer")!;
      assert.deepEqual(call.request, { containerId: "c-run", location, timeout: "7" });
      assert.equal(call.grpcTimeout, "12000m");
      assert.equal(await Deno.readTextFile(location), "fake checkpoint");
    });

    await t.step("a runtime without checkpoint support", async () => {
      fake.state.checkpoint = "unimplemented";
      await assert.rejects(
        rt.checkpointContainer("c-run", {
          location: `${dir}/x.tar`,
          signal: new AbortController().signal,
          timeoutSeconds: 0,
        }),
        CheckpointNotSupportedError,
      );
    });

    await t.step("an aborted checkpoint cancels the call", async () => {
      fake.state.checkpoint = "hang";
      const ac = new AbortController();
      const p = rt.checkpointContainer("c-run", {
        location: `${dir}/y.tar`,
        signal: ac.signal,
        timeoutSeconds: 0,
      });
      ac.abort(new Error("timed out"));
      await assert.rejects(p, /Canceled/);
    });

    await t.step("startContainer() reports CreateContainerError", async () => {
      await assert.rejects(rt.startContainer(), CreateContainerError);
    });

    await t.step("stopContainer() sends the grace period in seconds", async () => {
      await rt.stopContainer("c-run", 30_000);
      const call = fake.calls.findLast((c) => c.method === "StopContainer")!;
      assert.deepEqual(call.request, { containerId: "c-run", timeout: "30" });
    });
  });
});

Deno.test("CriRuntime reports an unreachable runtime as unhealthy", async () => {
  const rt = new CriRuntime("unix:///nonexistent/cri.sock");
  try {
    const errors = await rt.healthErrors();
    assert.equal(errors.length, 1);
    assert.match(errors[0], /is not responding/);
  } finally {
    await rt.close();
  }
});
