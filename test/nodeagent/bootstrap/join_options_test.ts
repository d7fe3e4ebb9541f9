import assert from "node:assert/strict";
import { parseAgentOptions } from "../../../nodeagent/agent_options.ts";
import { renewalTime } from "../../../nodeagent/bootstrap/client_cert_rotation.ts";

const HASH = `sha256:${"a".repeat(64)}`;

Deno.test("parseAgentOptions() takes the join flags without --kubeconfig and never echoes the token", async () => {
  const root = await Deno.makeTempDir();
  const ok = await parseAgentOptions([
    "--server=https://127.0.0.1:6443",
    "--token=abcdef.0123456789abcdef",
    `--discovery-token-ca-cert-hash=${HASH}`,
    `--root-dir=${root}`,
    "--hostname-override=n1",
  ]);
  assert.ok(ok.ok, JSON.stringify(ok));
  if (ok.ok) {
    assert.equal(ok.options.kubeconfig, `${root}/nodeagent.kubeconfig`);
    assert.equal(ok.options.bootstrap?.rotateCertificates, true);
    assert.deepEqual(ok.options.bootstrap?.join?.caCertHashes, [HASH]);
  }
  const bad = await parseAgentOptions([
    "--token=ABCDEF.secretsecretsecre",
    "--server=http://x",
    "--hostname-override=n1",
  ]);
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.ok(bad.errors.every((e) => !e.includes("secretsecretsecre")));
    assert.ok(bad.errors.some((e) => e.startsWith("--token:")));
    assert.ok(bad.errors.some((e) => e.startsWith("--server:")));
    assert.ok(bad.errors.some((e) => e.startsWith("--discovery-token-ca-cert-hash:")));
  }
  const skip = await parseAgentOptions([
    "--server=https://x:6443",
    "--token=abcdef.0123456789abcdef",
    "--discovery-token-unsafe-skip-ca-verification",
    "--hostname-override=n1",
  ]);
  assert.ok(skip.ok);
  await Deno.remove(root, { recursive: true });
});

Deno.test("renewalTime() falls between 70% and 90% of the lifetime", () => {
  const from = new Date(0);
  const to = new Date(1000);
  assert.equal(renewalTime(from, to, 0), 700);
  assert.ok(Math.abs(renewalTime(from, to, 1) - 900) < 1e-6);
});
