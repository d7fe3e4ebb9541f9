import assert from "node:assert/strict";
import { CriRuntime } from "../../../../nodeagent/runtime/cri/cri_runtime.ts";

async function which(bin: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if ((await Deno.stat(`${dir}/${bin}`)).isFile) return `${dir}/${bin}`;
    } catch { /* not here */ }
  }
  return undefined;
}

Deno.test("CriRuntime against a real containerd (skipped without containerd or root)", async () => {
  const containerd = await which("containerd");
  if (!containerd || Deno.uid() !== 0) {
    console.log(
      `skipping: ${
        !containerd
          ? "containerd is not installed (Debian: apt-get install containerd)"
          : "not root"
      }`,
    );
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "containerd-" });
  const socket = `${dir}/containerd.sock`;
  const child = new Deno.Command(containerd, {
    args: ["--address", socket, "--root", `${dir}/root`, "--state", `${dir}/state`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const rt = new CriRuntime(`unix://${socket}`);
  try {
    const deadline = Date.now() + 30_000;
    let version = "";
    while (!version) {
      try {
        version = await rt.version();
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.match(version, /^containerd:\/\/\S+/);
    assert.ok(Array.isArray(await rt.healthErrors()));
    assert.deepEqual(await rt.listPods(), []);
    assert.deepEqual(await rt.listContainers(), []);
  } finally {
    await rt.close();
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
