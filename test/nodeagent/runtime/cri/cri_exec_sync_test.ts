import assert from "node:assert/strict";
import { CriRuntime } from "../../../../nodeagent/runtime/cri/cri_runtime.ts";
import { startFakeCriServer } from "./_fake_cri_server.ts";

Deno.test("CriRuntime.execSync() runs ExecSync and reports exit codes, output and timeouts", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "cri-exec-" });
  const fake = await startFakeCriServer(dir);
  const rt = new CriRuntime(`unix://${fake.socketPath}`);
  try {
    await t.step("success with the command's output", async () => {
      const r = await rt.execSync("c1", ["cat", "/tmp/healthy"], 2_000);
      assert.deepEqual(r, { exitCode: 0, stdout: "cat /tmp/healthy", stderr: "", timedOut: false });
      const call = fake.calls.find((c) => c.method === "ExecSync")!;
      assert.deepEqual(call.request.cmd, ["cat", "/tmp/healthy"]);
      assert.equal(String(call.request.timeout), "2");
    });
    await t.step("a failing command", async () => {
      const r = await rt.execSync("c1", ["false"], 1_000);
      assert.equal(r.exitCode, 1);
      assert.equal(r.stderr, "failed");
    });
    await t.step("DeadlineExceeded is a timeout", async () => {
      const r = await rt.execSync("c1", ["timeout"], 1_000);
      assert.equal(r.timedOut, true);
    });
  } finally {
    await rt.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
