import assert from "node:assert/strict";
import {
  CheckpointNotSupportedError,
  type ContainerSpec,
  CreateContainerError,
  ImagePullError,
  type PodInfo,
  PodSandboxError,
} from "../../../../nodeagent/runtime/runtime.ts";
import {
  CriRuntime,
  criSocketPath,
  criState,
} from "../../../../nodeagent/runtime/cri/cri_runtime.ts";
import {
  DEFAULT_MASKED_PATHS,
  DEFAULT_READONLY_PATHS,
} from "../../../../nodeagent/runtime/cri/cri_configs.ts";
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

Deno.test("criState() maps CRI container states to pod container states", async (t) => {
  const base = {
    id: "x",
    createdAt: "0",
    startedAt: String(NS),
    finishedAt: String(NS + 1_000_000_000n),
    exitCode: 0,
    reason: "",
    message: "",
    labels: {},
    annotations: {},
  };
  const cases: [string, Partial<typeof base> & { state: string }, unknown][] = [
    ["created", { state: "CONTAINER_CREATED" }, { waiting: { reason: "ContainerCreating" } }],
    ["running", { state: "CONTAINER_RUNNING" }, {
      running: { startedAt: "2023-11-14T22:13:20Z" },
    }],
    ["exited 0", { state: "CONTAINER_EXITED" }, {
      terminated: {
        exitCode: 0,
        reason: "Completed",
        startedAt: "2023-11-14T22:13:20Z",
        finishedAt: "2023-11-14T22:13:21Z",
      },
    }],
    ["exited with the runtime's reason", {
      state: "CONTAINER_EXITED",
      exitCode: 137,
      reason: "OOMKilled",
      message: "out of memory",
    }, {
      terminated: {
        exitCode: 137,
        reason: "OOMKilled",
        message: "out of memory",
        startedAt: "2023-11-14T22:13:20Z",
        finishedAt: "2023-11-14T22:13:21Z",
      },
    }],
    ["unknown", { state: "CONTAINER_UNKNOWN" }, {
      waiting: { reason: "ContainerStatusUnknown", message: undefined },
    }],
  ];
  for (const [name, over, want] of cases) {
    await t.step(name, () => assert.deepEqual(criState({ ...base, ...over }), want));
  }
});

const POD: PodInfo = {
  namespace: "default",
  name: "web",
  uid: "uid-7",
  labels: { app: "web" },
  annotations: { note: "x" },
  securityContext: {
    runAsUser: 1000,
    supplementalGroups: [5],
    sysctls: [{ name: "net.ipv4.ip_unprivileged_port_start", value: "0" }],
  },
};

const MAIN: ContainerSpec = {
  name: "main",
  image: "busybox:1.36",
  command: ["sleep"],
  args: ["600"],
  env: [{ name: "GREETING", value: "hello" }],
  workingDir: "/work",
  mounts: [{ containerPath: "/data", hostPath: "/srv/data", readOnly: true }],
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
};

async function withCreatingFake(
  fn: (fake: FakeCriServer, rt: CriRuntime, rootDir: string) => Promise<void>,
  opts: { seccompDefault?: boolean } = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "cri-create-" });
  const rootDir = `${dir}/root`;
  await Deno.mkdir(`${rootDir}/seccomp/profiles`, { recursive: true });
  const fake = await startFakeCriServer(dir);
  fake.state.registry["busybox:1.36"] = "sha256:b05y";
  const rt = new CriRuntime(`unix://${fake.socketPath}`, { rootDir, ...opts });
  try {
    await fn(fake, rt, rootDir);
  } finally {
    await rt.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const methods = (fake: FakeCriServer, from = 0) => fake.calls.slice(from).map((c) => c.method);

Deno.test("CriRuntime.startContainer() creates the pod's sandbox and containers", async (t) => {
  await withCreatingFake(async (fake, rt, rootDir) => {
    let mainId = "";
    await t.step("the first container: sandbox, pull, create, start", async () => {
      const st = await rt.startContainer(POD, MAIN);
      mainId = st.id;
      assert.deepEqual(methods(fake).filter((m) => m !== "ListContainers"), [
        "ListPodSandbox",
        "RunPodSandbox",
        "ImageStatus",
        "PullImage",
        "CreateContainer",
        "StartContainer",
        "ContainerStatus",
        "ListPodSandbox",
      ]);
      assert.equal(st.name, "main");
      assert.deepEqual(st.pod, { namespace: "default", name: "web", uid: "uid-7" });
      assert.ok("running" in st.state);
      assert.equal(st.restartCount, 0);
    });

    await t.step("the sandbox config carries the pod's metadata and security", () => {
      const [id, config] = Object.entries(fake.state.sandboxConfigs)[0];
      assert.ok(id);
      assert.deepEqual(config.metadata, {
        name: "web",
        uid: "uid-7",
        namespace: "default",
        attempt: 0,
      });
      assert.equal(config.hostname, "web");
      assert.equal(config.logDirectory, `${rootDir}/pod-logs/default_web_uid-7`);
      assert.deepEqual(config.labels, {
        app: "web",
        "io.kubernetes.pod.name": "web",
        "io.kubernetes.pod.namespace": "default",
        "io.kubernetes.pod.uid": "uid-7",
      });
      assert.deepEqual(config.annotations, { note: "x" });
      const linux = config.linux as Record<string, Record<string, unknown>>;
      assert.deepEqual(linux.sysctls, { "net.ipv4.ip_unprivileged_port_start": "0" });
      assert.deepEqual(linux.securityContext.namespaceOptions, {
        network: "POD",
        pid: "CONTAINER",
        ipc: "POD",
        targetId: "",
      });
      assert.deepEqual(linux.securityContext.seccomp, {
        profileType: "Unconfined",
        localhostRef: "",
      });
      assert.deepEqual(linux.securityContext.runAsUser, { value: "1000" });
      assert.deepEqual(linux.securityContext.supplementalGroups, ["5"]);
      assert.equal(linux.securityContext.privileged, false);
    });

    await t.step("the container config carries the spec", async () => {
      const config = fake.state.containerConfigs[mainId];
      assert.deepEqual(config.metadata, { name: "main", attempt: 0 });
      assert.deepEqual(config.image, {
        image: "sha256:b05y",
        annotations: {},
        userSpecifiedImage: "busybox:1.36",
      });
      assert.deepEqual(config.command, ["sleep"]);
      assert.deepEqual(config.args, ["600"]);
      assert.equal(config.workingDir, "/work");
      assert.deepEqual(config.envs, [{ key: "GREETING", value: "hello" }]);
      assert.deepEqual(config.mounts, [{
        containerPath: "/data",
        hostPath: "/srv/data",
        readonly: true,
        selinuxRelabel: false,
        propagation: "PROPAGATION_PRIVATE",
      }]);
      assert.deepEqual(config.labels, {
        "io.kubernetes.pod.name": "web",
        "io.kubernetes.pod.namespace": "default",
        "io.kubernetes.pod.uid": "uid-7",
        "io.kubernetes.container.name": "main",
      });
      assert.deepEqual(config.annotations, { "io.kubernetes.container.restartCount": "0" });
      assert.equal(config.logPath, "main/0.log");
      const sc = (config.linux as Record<string, Record<string, unknown>>).securityContext;
      assert.equal(sc.noNewPrivs, true);
      assert.equal(sc.privileged, false);
      assert.deepEqual(sc.capabilities, { addCapabilities: [], dropCapabilities: ["ALL"] });
      assert.deepEqual(sc.runAsUser, { value: "1000" });
      assert.deepEqual(sc.maskedPaths, DEFAULT_MASKED_PATHS);
      assert.deepEqual(sc.readonlyPaths, DEFAULT_READONLY_PATHS);
      assert.deepEqual(sc.seccomp, { profileType: "Unconfined", localhostRef: "" });
      assert.ok((await Deno.stat(`${rootDir}/pod-logs/default_web_uid-7/main`)).isDirectory);
    });

    await t.step("a second container reuses the sandbox and the present image", async () => {
      const from = fake.calls.length;
      const st = await rt.startContainer(POD, { ...MAIN, name: "side" });
      assert.ok("running" in st.state);
      const called = methods(fake, from);
      assert.ok(!called.includes("RunPodSandbox"), called.join());
      assert.ok(!called.includes("PullImage"), called.join());
      assert.ok(called.includes("ImageStatus"));
      assert.equal(new Set(fake.state.containers.map((c) => c.podSandboxId)).size, 1);
    });

    await t.step("a restart counts up and keeps one dead instance", async () => {
      fake.exit(mainId, 1);
      const first = await rt.startContainer(POD, MAIN);
      assert.equal(first.restartCount, 1);
      assert.equal(fake.state.containerConfigs[first.id].logPath, "main/1.log");
      assert.deepEqual(fake.state.containerConfigs[first.id].metadata, {
        name: "main",
        attempt: 1,
      });
      fake.exit(first.id, 2);
      const second = await rt.startContainer(POD, MAIN);
      assert.equal(second.restartCount, 2);
      const mains = (await rt.listContainers()).filter((c) => c.name === "main");
      assert.deepEqual(mains.map((c) => [c.id, Object.keys(c.state)[0]]).sort(), [
        [first.id, "terminated"],
        [second.id, "running"],
      ]);
    });

    await t.step("imagePullPolicy Always pulls a present image", async () => {
      const from = fake.calls.length;
      await rt.startContainer(POD, { ...MAIN, name: "always", imagePullPolicy: "Always" });
      const called = methods(fake, from);
      assert.ok(called.includes("PullImage") && !called.includes("ImageStatus"), called.join());
    });

    await t.step("removePod() stops and removes the sandbox and the logs", async () => {
      const from = fake.calls.length;
      await rt.removePod("uid-7");
      assert.deepEqual(methods(fake, from), [
        "ListPodSandbox",
        "StopPodSandbox",
        "RemovePodSandbox",
      ]);
      assert.deepEqual(fake.state.sandboxes, []);
      assert.deepEqual(fake.state.containers, []);
      await assert.rejects(
        Deno.stat(`${rootDir}/pod-logs/default_web_uid-7`),
        Deno.errors.NotFound,
      );
      await rt.removePod("unknown-uid");
    });

    await t.step("a pod whose sandbox stopped gets a new one, next attempt", async () => {
      await rt.startContainer(POD, MAIN);
      const sb = fake.state.sandboxes[0];
      sb.state = "SANDBOX_NOTREADY";
      await rt.startContainer(POD, MAIN);
      const attempts = fake.state.sandboxes.map((s) => (s.metadata as { attempt: number }).attempt);
      assert.deepEqual(attempts, [0, 1]);
      assert.deepEqual(
        (await rt.listPods()).map((p) => p.ready),
        [false, true],
      );
    });
  });
});

Deno.test("CriRuntime.startContainer() resolves seccomp profiles by the spec's rules", async (t) => {
  await withCreatingFake(async (fake, rt, rootDir) => {
    await Deno.writeTextFile(
      `${rootDir}/seccomp/profiles/audit.json`,
      JSON.stringify({ defaultAction: "SCMP_ACT_LOG" }),
    );
    const profile = `${rootDir}/seccomp/profiles/audit.json`;
    const seccompOf = (id: string) =>
      (fake.state.containerConfigs[id].linux as Record<string, Record<string, unknown>>)
        .securityContext.seccomp;
    const pod: PodInfo = {
      ...POD,
      uid: "uid-sec",
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
    };
    const cases: [string, ContainerSpec["securityContext"], unknown][] = [
      ["a container inherits the pod's profile", undefined, {
        profileType: "RuntimeDefault",
        localhostRef: "",
      }],
      [
        "a container's Localhost profile wins, as an absolute path under the root dir",
        { seccompProfile: { type: "Localhost", localhostProfile: "profiles/audit.json" } },
        { profileType: "Localhost", localhostRef: profile },
      ],
      ["privileged runs Unconfined", {
        privileged: true,
        seccompProfile: { type: "Localhost", localhostProfile: "profiles/audit.json" },
      }, { profileType: "Unconfined", localhostRef: "" }],
    ];
    let n = 0;
    for (const [name, securityContext, want] of cases) {
      await t.step(name, async () => {
        const st = await rt.startContainer(pod, {
          ...MAIN,
          name: `c${n++}`,
          securityContext,
        });
        assert.deepEqual(seccompOf(st.id), want);
      });
    }

    await t.step("the sandbox runs with the pod-level profile", () => {
      const config = Object.values(fake.state.sandboxConfigs)[0];
      const linux = config.linux as Record<string, Record<string, unknown>>;
      assert.deepEqual(linux.securityContext.seccomp, {
        profileType: "RuntimeDefault",
        localhostRef: "",
      });
    });

    await t.step("privileged containers get no masked or read-only paths", () => {
      const id = fake.state.containers.find((c) =>
        (c.metadata as { name: string }).name === "c2"
      )!.id;
      const sc = (fake.state.containerConfigs[id].linux as Record<string, Record<string, unknown>>)
        .securityContext;
      assert.equal(sc.privileged, true);
      assert.deepEqual(sc.maskedPaths, []);
      assert.deepEqual(sc.readonlyPaths, []);
    });

    await t.step("a missing Localhost profile fails before the runtime is asked", async () => {
      const from = fake.calls.length;
      await assert.rejects(
        rt.startContainer(pod, {
          ...MAIN,
          name: "missing",
          securityContext: {
            seccompProfile: { type: "Localhost", localhostProfile: "profiles/none.json" },
          },
        }),
        (err: unknown) => {
          assert.ok(err instanceof CreateContainerError);
          assert.equal(err.reason, "CreateContainerError");
          assert.match(
            err.message,
            /cannot load seccomp profile ".*\/seccomp\/profiles\/none\.json".*no such file/,
          );
          return true;
        },
      );
      assert.deepEqual(methods(fake, from), []);
    });
  });
});

Deno.test("CriRuntime uses RuntimeDefault for unset profiles with seccompDefault", async () => {
  await withCreatingFake(async (fake, rt) => {
    const st = await rt.startContainer(POD, MAIN);
    const sc = (fake.state.containerConfigs[st.id].linux as Record<string, Record<string, unknown>>)
      .securityContext;
    assert.deepEqual(sc.seccomp, { profileType: "RuntimeDefault", localhostRef: "" });
  }, { seccompDefault: true });
});

Deno.test("CriRuntime.startContainer() maps runtime failures to waiting reasons", async (t) => {
  await withCreatingFake(async (fake, rt) => {
    await t.step("an image that cannot be pulled is ErrImagePull", async () => {
      await assert.rejects(rt.startContainer(POD, { ...MAIN, image: "nope:1" }), (err) => {
        assert.ok(err instanceof ImagePullError);
        assert.equal(err.reason, "ErrImagePull");
        assert.equal(
          err.message,
          'Failed to pull image "nope:1": rpc error: code = Unknown desc = failed to pull and ' +
            'unpack image "nope:1": failed to resolve reference "nope:1": not found',
        );
        return true;
      });
      assert.ok(!fake.calls.some((c) => c.method === "CreateContainer"));
    });

    await t.step("a missing image with imagePullPolicy Never is ErrImageNeverPull", async () => {
      await assert.rejects(
        rt.startContainer(POD, { ...MAIN, image: "nope:1", imagePullPolicy: "Never" }),
        (err) => {
          assert.ok(err instanceof ImagePullError);
          assert.equal(err.reason, "ErrImageNeverPull");
          assert.match(err.message, /is not present with pull policy of Never/);
          return true;
        },
      );
    });

    await t.step("a failed CreateContainer is a CreateContainerError", async () => {
      fake.state.fail.CreateContainer = "failed to create containerd container: boom";
      await assert.rejects(rt.startContainer(POD, MAIN), (err) => {
        assert.ok(err instanceof CreateContainerError);
        assert.equal(
          err.message,
          "rpc error: code = Unknown desc = failed to create containerd container: boom",
        );
        return true;
      });
      delete fake.state.fail.CreateContainer;
    });

    await t.step("a failed StartContainer removes the created container", async () => {
      fake.state.fail.StartContainer = "failed to start: exec format error";
      await assert.rejects(rt.startContainer(POD, MAIN), (err) => {
        assert.ok(!(err instanceof CreateContainerError));
        assert.match((err as Error).message, /exec format error/);
        return true;
      });
      assert.deepEqual(fake.state.containers, []);
      delete fake.state.fail.StartContainer;
    });

    await t.step("a failed RunPodSandbox is a PodSandboxError", async () => {
      fake.state.fail.RunPodSandbox = "failed to setup network for sandbox";
      await assert.rejects(rt.startContainer({ ...POD, uid: "uid-nosb" }, MAIN), (err) => {
        assert.ok(err instanceof PodSandboxError);
        assert.equal(err.reason, "ContainerCreating");
        assert.match(err.message, /^Failed to create pod sandbox: .*network/);
        return true;
      });
      delete fake.state.fail.RunPodSandbox;
    });

    await t.step("a container without an image is a CreateContainerError", async () => {
      await assert.rejects(
        rt.startContainer(POD, { ...MAIN, image: undefined }),
        CreateContainerError,
      );
    });
  });
});
