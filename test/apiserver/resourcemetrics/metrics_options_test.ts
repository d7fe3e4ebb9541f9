import assert from "node:assert/strict";
import { parseServerOptions } from "../../../apiserver/options.ts";

Deno.test("parseServerOptions() reads --metrics-resolution and the kubelet TLS flags", () => {
  const d = parseServerOptions([]);
  assert.ok(d.ok);
  assert.deepEqual(d.options.resourceMetrics, { resolutionMs: 15_000, kubeletInsecureTls: false });
  const o = parseServerOptions([
    "--metrics-resolution=30s",
    "--kubelet-insecure-tls",
    "--kubelet-certificate-authority=/etc/ca.pem",
  ]);
  assert.ok(o.ok);
  assert.deepEqual(o.options.resourceMetrics, {
    resolutionMs: 30_000,
    kubeletInsecureTls: true,
    kubeletCertificateAuthority: "/etc/ca.pem",
  });
  const bad = parseServerOptions(["--metrics-resolution=soon", "--kubelet-insecure-tls=maybe"]);
  assert.ok(!bad.ok);
  assert.deepEqual(bad.errors, [
    '--metrics-resolution: invalid duration "soon"',
    '--kubelet-insecure-tls: invalid value "maybe" (true or false)',
  ]);
  const zero = parseServerOptions(["--metrics-resolution=0s"]);
  assert.ok(!zero.ok);
});
