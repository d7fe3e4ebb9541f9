import assert from "node:assert/strict";
import { parseKubeconfig } from "../../../shared/client/kubeconfig.ts";
import {
  type ExecConfig,
  ExecCredentialProvider,
  parseExecConfig,
} from "../../../shared/client/exec_credential.ts";

const V1 = "client.authentication.k8s.io/v1";

/** A plugin script printing `output` and recording its KUBERNETES_EXEC_INFO. */
async function plugin(dir: string, output: unknown): Promise<string> {
  const path = `${dir}/plugin.sh`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nprintf '%s' "$KUBERNETES_EXEC_INFO" > "${dir}/info.json"\necho "$EXTRA" > "${dir}/env.txt"\ncat <<'EOF'\n${
      JSON.stringify(output)
    }\nEOF\n`,
  );
  await Deno.chmod(path, 0o755);
  return path;
}

function config(command: string, extra: Partial<ExecConfig> = {}): ExecConfig {
  return { command, apiVersion: V1, interactiveMode: "Never", ...extra };
}

Deno.test("parseExecConfig() resolves a relative command against the kubeconfig's directory", () => {
  const raw = { command: "./bin/plugin", apiVersion: V1, interactiveMode: "Never" };
  assert.equal(parseExecConfig(raw, "/etc/kube", "u").command, "/etc/kube/bin/plugin");
  assert.equal(parseExecConfig({ ...raw, command: "plugin" }, "/etc/kube", "u").command, "plugin");
  assert.throws(
    () => parseExecConfig({ command: "p", apiVersion: V1 }, "/", "u"),
    /interactiveMode must be specified/,
  );
  assert.equal(
    parseExecConfig({ command: "p", apiVersion: `${V1}beta1` }, "/", "u").interactiveMode,
    "IfAvailable",
  );
  assert.throws(() => parseExecConfig({ command: "p", apiVersion: "v9" }, "/", "u"), /apiVersion/);
});

Deno.test("ExecCredentialProvider checks the apiVersion the plugin returns", async () => {
  const dir = await Deno.makeTempDir();
  const cmd = await plugin(dir, {
    apiVersion: "client.authentication.k8s.io/v1beta1",
    kind: "ExecCredential",
    status: { token: "t" },
  });
  await assert.rejects(
    new ExecCredentialProvider(config(cmd), { isTerminal: () => false }).get(),
    /configured to use API version client.authentication.k8s.io\/v1, plugin returned version client.authentication.k8s.io\/v1beta1/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ExecCredentialProvider refuses interactiveMode Always without a terminal", async () => {
  const p = new ExecCredentialProvider(config("true", { interactiveMode: "Always" }), {
    isTerminal: () => false,
  });
  await assert.rejects(p.get(), /standard input is not a terminal/);
});

Deno.test("ExecCredentialProvider shows the installHint when the command is missing", async () => {
  const p = new ExecCredentialProvider(
    config("/nonexistent/plugin", { installHint: "install it with apt" }),
    { isTerminal: () => false },
  );
  await assert.rejects(
    p.get(),
    /executable \/nonexistent\/plugin not found\n\ninstall it with apt/,
  );
});

Deno.test("ExecCredentialProvider gives the cluster with provideClusterInfo, env, and caches until expiry", async () => {
  const dir = await Deno.makeTempDir();
  const cmd = await plugin(dir, {
    apiVersion: V1,
    kind: "ExecCredential",
    status: { token: "tok", expirationTimestamp: "2999-01-01T00:00:00Z" },
  });
  const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://example:6443
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: abc}
users:
- name: u
  user:
    exec:
      apiVersion: ${V1}
      command: ./plugin.sh
      env: [{name: EXTRA, value: hello}]
      provideClusterInfo: true
      interactiveMode: Never
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`;
  const cfg = await parseKubeconfig(kubeconfig, dir);
  assert.equal(cfg.exec?.command, cmd);
  const p = new ExecCredentialProvider(cfg.exec!, { cluster: cfg.execCluster });
  assert.deepEqual(await p.get(), { token: "tok", expiresAt: Date.parse("2999-01-01T00:00:00Z") });
  await p.get();
  assert.equal(p.runs, 1, "cached while valid");
  const info = JSON.parse(await Deno.readTextFile(`${dir}/info.json`));
  assert.deepEqual(info, {
    apiVersion: V1,
    kind: "ExecCredential",
    spec: {
      interactive: false,
      cluster: { server: "https://example:6443", config: { audience: "abc" } },
    },
  });
  assert.equal((await Deno.readTextFile(`${dir}/env.txt`)).trim(), "hello");
  p.invalidate();
  await p.get();
  assert.equal(p.runs, 2);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("parseKubeconfig() refuses auth-provider with a clear error", async () => {
  const text = `clusters: [{name: c, cluster: {server: "https://x"}}]
users: [{name: u, user: {auth-provider: {name: oidc}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;
  await assert.rejects(parseKubeconfig(text, "/"), /auth-provider "oidc" is not supported/);
});
