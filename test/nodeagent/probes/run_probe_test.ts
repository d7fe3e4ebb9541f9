import assert from "node:assert/strict";
import { resolvePort } from "../../../nodeagent/probes/probe_spec.ts";
import { runProbe } from "../../../nodeagent/probes/run_probe.ts";
import type { ExecSyncResult } from "../../../nodeagent/runtime/runtime.ts";

function target(result: ExecSyncResult | undefined) {
  const calls: unknown[][] = [];
  return {
    calls,
    target: {
      runtime: result
        ? {
          execSync(id: string, cmd: string[], timeoutMs: number) {
            calls.push([id, cmd, timeoutMs]);
            return Promise.resolve(result);
          },
        }
        : {},
      containerId: "c1",
      container: { name: "web", ports: [{ name: "http", containerPort: 8080 }] },
      podIP: "127.0.0.1",
    },
  };
}

Deno.test("resolvePort() takes numbers and the names of container ports", () => {
  const c = { name: "web", ports: [{ name: "http", containerPort: 8080 }] };
  assert.equal(resolvePort(81, c), 81);
  assert.equal(resolvePort("82", c), 82);
  assert.equal(resolvePort("http", c), 8080);
  assert.throws(() => resolvePort("grpc", c), /couldn't find port: grpc/);
  assert.throws(() => resolvePort(70000, c), /invalid port number/);
});

Deno.test("runProbe() runs exec probes through the runtime's execSync", async (t) => {
  await t.step("exit 0 is success", async () => {
    const { target: tg, calls } = target({
      exitCode: 0,
      stdout: "ok",
      stderr: "",
      timedOut: false,
    });
    const out = await runProbe({ exec: { command: ["cat", "/tmp/healthy"] } }, tg, 1_000);
    assert.deepEqual(out, { result: "success", output: "ok" });
    assert.deepEqual(calls, [["c1", ["cat", "/tmp/healthy"], 1_000]]);
  });
  await t.step("another exit code is failure with the output", async () => {
    const { target: tg } = target({
      exitCode: 1,
      stdout: "",
      stderr: "cat: /tmp/healthy: No such file or directory\n",
      timedOut: false,
    });
    const out = await runProbe({ exec: { command: ["cat", "/tmp/healthy"] } }, tg, 1_000);
    assert.deepEqual(out, {
      result: "failure",
      output: "cat: /tmp/healthy: No such file or directory\n",
    });
  });
  await t.step("a timeout is failure with kube's message", async () => {
    const { target: tg } = target({ exitCode: -1, stdout: "", stderr: "", timedOut: true });
    const out = await runProbe({ exec: { command: ["sleep", "9"] } }, tg, 1_000);
    assert.deepEqual(out, { result: "failure", output: 'command "sleep 9" timed out' });
  });
  await t.step("a runtime without execSync gives unknown", async () => {
    const { target: tg } = target(undefined);
    const out = await runProbe({ exec: { command: ["true"] } }, tg, 1_000);
    assert.equal(out.result, "unknown");
  });
});

Deno.test("runProbe() resolves named ports and reports unknown ones as errors", async () => {
  const { target: tg } = target(undefined);
  const out = await runProbe({ tcpSocket: { port: "metrics" } }, tg, 1_000);
  assert.deepEqual(out, {
    result: "unknown",
    output: "couldn't find port: metrics in container web",
  });
});
