import assert from "node:assert/strict";
import { join } from "node:path";
import { parseServerOptions } from "../../../apiserver/options.ts";

const noEnv = () => undefined;

async function kubeconfigFile(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "main.kubeconfig");
  await Deno.writeTextFile(path, "apiVersion: v1\nkind: Config\n");
  return { dir, path };
}

Deno.test("delegationOptionsFromFlags() is off without a kubeconfig flag", () => {
  const r = parseServerOptions([], noEnv);
  assert.ok(r.ok);
  assert.equal(r.options.delegation, undefined);
  // kube-apiserver's webhook cache defaults stay.
  assert.equal(r.options.authentication.webhookCacheTtlMs, 120_000);
});

Deno.test("delegationOptionsFromFlags() takes the generic server's defaults", async () => {
  const { dir, path } = await kubeconfigFile();
  try {
    const r = parseServerOptions([`--authentication-kubeconfig=${path}`], noEnv);
    assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
    assert.deepEqual(r.options.delegation, {
      authenticationKubeconfig: path,
      authorizationKubeconfig: undefined,
      skipLookup: false,
      tolerateLookupFailure: false,
      tokenCacheTtlMs: 10_000,
      allowCacheTtlMs: 10_000,
      denyCacheTtlMs: 10_000,
      alwaysAllowPaths: ["/healthz", "/readyz", "/livez"],
      alwaysAllowGroups: ["system:masters"],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("delegationOptionsFromFlags() reads every flag", async () => {
  const { dir, path } = await kubeconfigFile();
  try {
    const r = parseServerOptions([
      `--authorization-kubeconfig=${path}`,
      "--authentication-skip-lookup",
      "--authentication-tolerate-lookup-failure=true",
      "--authentication-token-webhook-cache-ttl=1m",
      "--authorization-webhook-cache-authorized-ttl=2s",
      "--authorization-webhook-cache-unauthorized-ttl=0s",
      "--authorization-always-allow-paths=/healthz,/metrics*",
      "--authorization-always-allow-groups=admins",
      "--authorization-always-allow-groups=ops",
    ], noEnv);
    assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
    const d = r.options.delegation!;
    assert.equal(d.authorizationKubeconfig, path);
    assert.equal(d.skipLookup, true);
    assert.equal(d.tolerateLookupFailure, true);
    assert.deepEqual([d.tokenCacheTtlMs, d.allowCacheTtlMs, d.denyCacheTtlMs], [60_000, 2_000, 0]);
    assert.deepEqual(d.alwaysAllowPaths, ["/healthz", "/metrics*"]);
    assert.deepEqual(d.alwaysAllowGroups, ["admins", "ops"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("delegationOptionsFromFlags() reports bad values and flags without the mode", () => {
  const r = parseServerOptions([
    "--authentication-kubeconfig=/nonexistent/k",
    "--authentication-skip-lookup=maybe",
  ], noEnv);
  assert.ok(!r.ok);
  assert.ok(r.errors.some((e) => e.startsWith("--authentication-kubeconfig: /nonexistent/k")));
  assert.ok(
    r.errors.some((e) => e.startsWith("--authentication-skip-lookup: must be true or false")),
  );
  const alone = parseServerOptions(["--authorization-always-allow-groups=x"], noEnv);
  assert.ok(!alone.ok);
  assert.deepEqual(alone.errors, [
    "--authorization-always-allow-groups: needs --authentication-kubeconfig or --authorization-kubeconfig",
  ]);
});
