import assert from "node:assert/strict";
import { parseServerOptions } from "../../../apiserver/options.ts";

Deno.test("parseServerOptions() reads --metrics-resolution and the kubelet TLS flags", async () => {
  const dir = await Deno.makeTempDir();
  const caFile = `${dir}/ca.pem`;
  await Deno.writeTextFile(caFile, "-----BEGIN CERTIFICATE-----\n");
  const d = parseServerOptions([]);
  assert.ok(d.ok);
  assert.deepEqual(d.options.resourceMetrics, { resolutionMs: 15_000, kubeletInsecureTls: false });
  const o = parseServerOptions([
    "--metrics-resolution=30s",
    "--kubelet-insecure-tls",
    `--kubelet-certificate-authority=${caFile}`,
  ]);
  assert.ok(o.ok);
  assert.deepEqual(o.options.resourceMetrics, {
    resolutionMs: 30_000,
    kubeletInsecureTls: true,
    kubeletCertificateAuthority: caFile,
  });
  const bad = parseServerOptions([
    "--metrics-resolution=soon",
    "--kubelet-insecure-tls=maybe",
    `--kubelet-certificate-authority=${dir}/missing.pem`,
  ]);
  assert.ok(!bad.ok);
  assert.deepEqual(bad.errors, [
    '--metrics-resolution: invalid duration "soon"',
    '--kubelet-insecure-tls: invalid value "maybe" (true or false)',
    `--kubelet-certificate-authority: ${dir}/missing.pem does not exist or cannot be read`,
  ]);
  await Deno.remove(dir, { recursive: true });
  const zero = parseServerOptions(["--metrics-resolution=0s"]);
  assert.ok(!zero.ok);
});
