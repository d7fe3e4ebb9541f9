import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import { bootstrapTokenSecret } from "../../apiserver/token_command.ts";
import { startTestServer } from "../support/test_server.ts";
import { runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";

const SECRETS = { version: "v1", resource: "secrets", namespace: "kube-system" };

Deno.test({
  name: "an exec plugin's token is used, cached while valid, and fetched again after a 401",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "exec-plugin-e2e-" });
    const ts = await startTestServer(["--enable-bootstrap-token-auth"]);
    try {
      await ts.client.create(SECRETS, bootstrapTokenSecret("plugin", "0123456789abcdef", 0));
      await Deno.writeTextFile(`${dir}/token`, "plugin.0123456789abcdef");
      await Deno.writeTextFile(
        `${dir}/plugin.sh`,
        `#!/bin/sh\necho run >> "${dir}/runs"\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$(cat "${dir}/token")"\n`,
      );
      await Deno.chmod(`${dir}/plugin.sh`, 0o755);
      const admin = await loadKubeconfig(ts.server.kubeconfigPath);
      const kubeconfig = `${dir}/exec.kubeconfig`;
      await Deno.writeTextFile(
        kubeconfig,
        `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${admin.server}
    certificate-authority-data: ${btoa(admin.caPem!)}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./plugin.sh
      interactiveMode: Never
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`,
      );
      const runs = async () => (await Deno.readTextFile(`${dir}/runs`)).trim().split("\n").length;
      const client = await RestClient.fromKubeconfig(kubeconfig);
      try {
        const review = async () =>
          (await client.create<KubeObject>(
            { group: "authentication.k8s.io", version: "v1", resource: "selfsubjectreviews" },
            { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview", metadata: {} },
          )) as unknown as { status: { userInfo: { username: string } } };
        assert.equal((await review()).status.userInfo.username, "system:bootstrap:plugin");
        await review();
        assert.equal(await runs(), 1, "the plugin ran once while its credential was valid");
        // The server stops accepting the token; the plugin now hands out another one.
        await ts.client.delete({ ...SECRETS, name: "bootstrap-token-plugin" });
        await ts.client.create(SECRETS, bootstrapTokenSecret("second", "fedcba9876543210", 0));
        await Deno.writeTextFile(`${dir}/token`, "second.fedcba9876543210");
        assert.equal((await review()).status.userInfo.username, "system:bootstrap:second");
        assert.equal(await runs(), 2, "a 401 ran the plugin again, once");
      } finally {
        client.close();
      }
      if (!skipWithoutKubectl("kubectl with an exec plugin")) {
        const r = await runKubectl({ kubeconfig, home: dir }, ["auth", "whoami", "-o", "name"]);
        assert.equal(r.code, 0, r.stdout + r.stderr);
        const who = await runKubectl({ kubeconfig, home: dir }, ["auth", "whoami"]);
        assert.match(who.stdout, /system:bootstrap:second/);
      }
    } finally {
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
