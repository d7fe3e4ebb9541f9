import assert from "node:assert/strict";
import { ProcessRuntime } from "../../../../nodeagent/runtime/process/process_runtime.ts";
import type { PodInfo } from "../../../../nodeagent/runtime/runtime.ts";

const pod: PodInfo = {
  namespace: "default",
  name: "web",
  uid: "0f7c1e2a-1111-2222-3333-777755556666",
};

Deno.test("ProcessRuntime.execSync() runs a command with the container's env and directory", async (t) => {
  const root = await Deno.makeTempDir();
  const rt = new ProcessRuntime({ rootDir: root });
  try {
    const s = await rt.startContainer(pod, {
      name: "app",
      command: ["sleep", "600"],
      env: [{ name: "GREETING", value: "hello" }],
    });
    await t.step("output and exit code 0", async () => {
      const r = await rt.execSync(s.id, ["sh", "-c", 'echo "$GREETING"; pwd'], 10_000);
      assert.equal(r.exitCode, 0);
      assert.equal(r.timedOut, false);
      assert.equal(r.stdout, `hello\n${root}/pods/${pod.uid}/containers/app/work\n`);
    });
    await t.step("a failing command", async () => {
      const r = await rt.execSync(s.id, ["sh", "-c", "echo bad >&2; exit 4"], 10_000);
      assert.deepEqual(r, { exitCode: 4, stdout: "", stderr: "bad\n", timedOut: false });
    });
    await t.step("a missing executable exits 126 with the error", async () => {
      const r = await rt.execSync(s.id, ["/nonexistent/probe"], 10_000);
      assert.equal(r.exitCode, 126);
      assert.match(r.stderr, /nonexistent/);
    });
    await t.step("a command past its timeout is killed", async () => {
      const r = await rt.execSync(s.id, ["sleep", "30"], 200);
      assert.equal(r.timedOut, true);
    });
    await t.step("a container that is not running refuses", async () => {
      await rt.stopContainer(s.id, 1_000);
      await assert.rejects(() => rt.execSync(s.id, ["true"], 1_000), /not running/);
    });
  } finally {
    await rt.close();
    await Deno.remove(root, { recursive: true });
  }
});
