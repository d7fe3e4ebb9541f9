/**
 * The nodeagent executable as a subprocess: `--help` lists the feature gates as the API server
 * does, and bad gates are refused at start with kube's messages.
 */
import assert from "node:assert/strict";

const ENTRY = new URL("../../cmd/nodeagent.ts", import.meta.url).pathname;

function run(args: string[]): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ENTRY, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("nodeagent --help lists the feature gates with stage and default", async () => {
  const out = await run(["--help"]);
  assert.equal(out.code, 0);
  const stdout = new TextDecoder().decode(out.stdout);
  for (
    const want of [
      "--feature-gates            A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n",
      "   ContainerCheckpoint=true|false (BETA - default=true)\n",
      "   KubeletFineGrainedAuthz=true|false (ALPHA - default=false)\n",
    ]
  ) assert.ok(stdout.includes(want), `${want}\n${stdout}`);
});

Deno.test("nodeagent refuses unknown and locked feature gates at start, all at once", async () => {
  const out = await run([
    "--kubeconfig=/nonexistent/kubeconfig",
    "--feature-gates=NoSuchGate=true,SeccompDefault=false",
  ]);
  assert.equal(out.code, 1);
  const stderr = new TextDecoder().decode(out.stderr);
  for (
    const want of [
      "--feature-gates: unrecognized feature gate: NoSuchGate",
      "--feature-gates: cannot set feature gate SeccompDefault to false, feature is locked to true",
    ]
  ) assert.ok(stderr.includes(want), `${want}\n${stderr}`);
});
