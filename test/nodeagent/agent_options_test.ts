import assert from "node:assert/strict";
import { parseAgentOptions, parseNodeLabels } from "../../nodeagent/agent_options.ts";

Deno.test("parseNodeLabels() splits key=value pairs and reports malformed entries", () => {
  assert.deepEqual(parseNodeLabels("a=1, b/c=2,,bad"), {
    labels: { a: "1", "b/c": "2" },
    bad: ["bad"],
  });
});

Deno.test("parseAgentOptions() reports every problem at once", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const config = `${dir}/config.yaml`;
    await Deno.writeTextFile(
      config,
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" +
        "nodeLeaseDurationSeconds: -1\nmaxPods: many\n",
    );
    await t.step("flags and files together", async () => {
      const r = await parseAgentOptions([
        `--config=${config}`,
        "--hostname-override=Not_A_Name!",
        "--feature-gates=NoSuchGate=true",
        "--node-labels=ok=1,-bad-=x",
        "--port=70000",
      ]);
      assert.equal(r.ok, false);
      const errors = r.ok ? [] : r.errors;
      for (
        const want of [
          "--kubeconfig: required",
          "--hostname-override",
          "--port",
          `${config}: maxPods`,
          `${config}: nodeLeaseDurationSeconds`,
          "--feature-gates: unrecognized feature gate: NoSuchGate",
          "--node-labels: nodeLabels[-bad-]",
        ]
      ) {
        assert.ok(errors.some((e) => e.includes(want)), `missing ${want} in\n${errors.join("\n")}`);
      }
    });
    await t.step("valid flags override the file", async () => {
      await Deno.writeTextFile(
        config,
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nport: 10255\n" +
          "featureGates:\n  ContainerCheckpoint: true\n",
      );
      const r = await parseAgentOptions([
        "--kubeconfig=/dev/null",
        `--config=${config}`,
        "--hostname-override=Node-1",
        "--root-dir=/tmp/x",
        "--feature-gates=ContainerCheckpoint=false",
        "--node-labels=topology.kubernetes.io/zone=z",
      ]);
      assert.ok(r.ok, r.ok ? "" : r.errors.join("\n"));
      if (!r.ok) return;
      assert.equal(r.options.nodeName, "node-1");
      assert.equal(r.options.config.port, 10255);
      assert.equal(r.options.config.rootDir, "/tmp/x");
      assert.deepEqual(r.options.config.nodeLabels, { "topology.kubernetes.io/zone": "z" });
      assert.equal(r.options.gates.enabled("ContainerCheckpoint"), false);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseAgentOptions() accumulates repeated --feature-gates and warns for GA gates", async () => {
  const r = await parseAgentOptions([
    "--kubeconfig=/dev/null",
    "--feature-gates=KubeletFineGrainedAuthz=true",
    "--feature-gates=ContainerCheckpoint=false,SeccompDefault=true",
  ]);
  assert.ok(r.ok, r.ok ? "" : r.errors.join("\n"));
  if (!r.ok) return;
  assert.equal(r.options.gates.enabled("KubeletFineGrainedAuthz"), true);
  assert.equal(r.options.gates.enabled("ContainerCheckpoint"), false);
  assert.deepEqual(r.options.warnings, [
    "Setting GA feature gate SeccompDefault=true. It will be removed in a future release.",
  ]);
});
