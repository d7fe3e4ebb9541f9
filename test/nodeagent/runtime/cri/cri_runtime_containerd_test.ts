import assert from "node:assert/strict";
import { CriRuntime } from "../../../../nodeagent/runtime/cri/cri_runtime.ts";
import {
  CheckpointNotSupportedError,
  ImagePullError,
  type PodInfo,
  PodSandboxError,
} from "../../../../nodeagent/runtime/runtime.ts";

async function which(bin: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if ((await Deno.stat(`${dir}/${bin}`)).isFile) return `${dir}/${bin}`;
    } catch { /* not here */ }
  }
  return undefined;
}

/** A containerd configuration that touches nothing outside `dir` (no system socket or state). */
function containerdConfig(dir: string): string {
  return [
    "version = 2",
    `root = "${dir}/root"`,
    `state = "${dir}/state"`,
    "[grpc]",
    `  address = "${dir}/containerd.sock"`,
    "[ttrpc]",
    `  address = "${dir}/containerd.sock.ttrpc"`,
    "[debug]",
    '  address = ""',
    "[metrics]",
    '  address = ""',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = "${dir}/opt"`,
    '[plugins."io.containerd.grpc.v1.cri"]',
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  [plugins."io.containerd.grpc.v1.cri".cni]',
    `    bin_dir = "${dir}/cni/bin"`,
    `    conf_dir = "${dir}/cni/conf"`,
    "",
  ].join("\n");
}

const POD: PodInfo = {
  namespace: "default",
  name: "probe",
  uid: "containerd-probe-uid",
  hostNetwork: true,
};

Deno.test("CriRuntime against a real containerd (skipped without containerd or root)", async (t) => {
  const containerd = await which("containerd");
  if (!containerd || Deno.uid() !== 0) {
    console.log(
      `skipping: ${
        !containerd
          ? "containerd is not installed (Debian: apt-get install containerd runc)"
          : "not root"
      }`,
    );
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "containerd-" });
  await Deno.writeTextFile(`${dir}/config.toml`, containerdConfig(dir));
  const child = new Deno.Command(containerd, {
    args: ["--config", `${dir}/config.toml`],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log += chunk;
  })();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const rt = new CriRuntime(`unix://${dir}/containerd.sock`, { rootDir: `${dir}/agent` });
  try {
    const deadline = Date.now() + 60_000;
    let version = "";
    while (!version) {
      try {
        version = await rt.version();
      } catch (err) {
        if (exited) {
          console.log(`skipping: containerd could not start: ${log.slice(-2000)}`);
          return;
        }
        if (Date.now() > deadline) throw new Error(`containerd did not answer: ${err}\n${log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    await t.step("Version names containerd", () => {
      assert.match(version, /^containerd:\/\/\S+/);
      assert.equal(rt.name, "containerd");
    });

    await t.step("Status: the runtime is ready, the network is not (no CNI config)", async () => {
      const errors = await rt.healthErrors();
      assert.ok(!errors.some((e) => /runtime is down/.test(e)), errors.join("; "));
      assert.ok(errors.some((e) => /network not ready/.test(e)), errors.join("; "));
    });

    await t.step("ListPodSandbox and ListContainers of a fresh runtime are empty", async () => {
      assert.deepEqual(await rt.listPods(), []);
      assert.deepEqual(await rt.listContainers(), []);
      assert.equal(await rt.containerStatus("0123456789abcdef"), undefined);
    });

    await t.step("CheckpointContainer is unsupported or names the unknown container", async () => {
      // containerd 1.6 does not implement it (Unimplemented); 1.7+ answers NotFound.
      await assert.rejects(
        rt.checkpointContainer("0123456789abcdef", {
          location: `${dir}/checkpoint.tar`,
          signal: new AbortController().signal,
          timeoutSeconds: 5,
        }),
        (err: unknown) => {
          if (err instanceof CheckpointNotSupportedError) {
            console.log(`CheckpointContainer: ${err.message}`);
            return true;
          }
          assert.match(String(err), /not found|NotFound/i);
          return true;
        },
      );
      await assert.rejects(Deno.stat(`${dir}/checkpoint.tar`), Deno.errors.NotFound);
    });

    await t.step("creating a container needs images: offline, the pull error", async () => {
      try {
        const st = await rt.startContainer(POD, {
          name: "c",
          image: "registry.k8s.io/pause:3.9",
          imagePullPolicy: "IfNotPresent",
        });
        // Online: the whole path worked.
        assert.ok("running" in st.state, JSON.stringify(st.state));
        console.log(`containerd ran ${st.id}`);
      } catch (err) {
        // Offline the sandbox (pause) image or the container image cannot be pulled.
        assert.ok(
          err instanceof PodSandboxError || err instanceof ImagePullError,
          `unexpected ${err}`,
        );
        assert.match((err as Error).message, /pull|resolve|dial|lookup|connect/i);
        console.log(`no network, images cannot be pulled: ${(err as Error).message}`);
      }
      await rt.removePod(POD.uid);
      assert.deepEqual(await rt.listPods(), []);
    });
  } finally {
    await rt.removePod(POD.uid).catch(() => {});
    await rt.close();
    if (!exited) child.kill("SIGTERM");
    const deadline = setTimeout(() => {
      if (!exited) child.kill("SIGKILL");
    }, 20_000);
    await status;
    clearTimeout(deadline);
    await pump;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
