import assert from "node:assert/strict";
import { issueCertificate } from "../../shared/pki/issue_certificate.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { startTestServer } from "../support/test_server.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { eventually } from "../support/eventually.ts";

const PODS = { version: "v1", resource: "pods", namespace: "default" };
const RBAC = { group: "rbac.authorization.k8s.io", version: "v1" };

interface Credential {
  token?: string;
  cert?: { certPem: string; keyPem: string };
}

Deno.test({
  name:
    "node agent checkpoint endpoint: 200 with a 0600 archive holding the container's memory, 401, 403 until granted, 404",
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "nodeagent-ckpt-" });
    const userToken = crypto.randomUUID().replaceAll("-", "");
    await Deno.writeTextFile(`${dir}/tokens.csv`, `${userToken},checkpointer,uid-ckpt\n`, {
      mode: 0o600,
    });
    const ts = await startTestServer([`--token-auth-file=${dir}/tokens.csv`], {
      dir: `${dir}/api`,
      keepDir: true,
    });
    // Each agent runs as its node (system:node:<name> in system:nodes), as a kubelet does; it
    // verifies client certificates against the cluster's client CA and does not keep denials.
    const extraConfig =
      `authentication:\n  x509:\n    clientCAFile: ${dir}/api/pki/client-ca.crt\n` +
      `authorization:\n  webhook:\n    cacheUnauthorizedTTL: 0s\n`;
    const agent = await startAgentProcess({
      kubeconfig: await writeNodeKubeconfig(ts.server, "ckpt", `${dir}/ckpt.kubeconfig`),
      rootDir: `${dir}/root`,
      nodeName: "ckpt",
      extraConfig,
    });
    const gateOff = await startAgentProcess({
      kubeconfig: await writeNodeKubeconfig(ts.server, "ckpt-off", `${dir}/off.kubeconfig`),
      rootDir: `${dir}/root-off`,
      nodeName: "ckpt-off",
      args: ["--feature-gates=ContainerCheckpoint=false"],
      extraConfig,
    });
    const secret = `SECRET-${crypto.randomUUID()}`;
    // The agents' certificates are self-signed: trust each one's own.
    const post = async (port: number, path: string, cred: Credential = {}) => {
      const certPem = await Deno.readTextFile(
        `${port === agent.port ? `${dir}/root` : `${dir}/root-off`}/pki/nodeagent.crt`,
      );
      const client = Deno.createHttpClient({
        caCerts: [certPem],
        ...(cred.cert ? { cert: cred.cert.certPem, key: cred.cert.keyPem } : {}),
      });
      try {
        const res = await fetch(`https://localhost:${port}${path}`, {
          method: "POST",
          headers: cred.token ? { authorization: `Bearer ${cred.token}` } : {},
          client,
        });
        return { status: res.status, body: await res.text() };
      } finally {
        client.close();
      }
    };
    try {
      for (const node of ["ckpt", "ckpt-off"]) {
        await ts.client.create(PODS, {
          metadata: { name: `holder-${node}`, namespace: "default" },
          spec: {
            nodeName: node,
            containers: [{
              name: "main",
              image: "busybox",
              command: [
                "python3",
                "-c",
                "import sys, time; kept = sys.argv[1] + '!'; print('ready', flush=True); time.sleep(3600)",
                secret,
              ],
            }],
          },
        });
      }
      await eventually("the container running", async () => {
        const pod = await ts.client.get<KubeObject>({ ...PODS, name: "holder-ckpt" });
        const st = pod.status as { phase?: string; containerStatuses?: { state: object }[] };
        return st.phase === "Running" && "running" in (st.containerStatuses?.[0]?.state ?? {})
          ? pod
          : undefined;
      }, AGENT_POLL);
      const admin: Credential = { token: ts.server.adminToken };
      const path = "/checkpoint/default/holder-ckpt/main";

      await t.step(
        "the agent runs as system:node:ckpt in system:nodes, without denials",
        async () => {
          const client = await RestClient.fromKubeconfig(`${dir}/ckpt.kubeconfig`);
          try {
            const review = await client.create<KubeObject>({
              group: "authentication.k8s.io",
              version: "v1",
              resource: "selfsubjectreviews",
            }, { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } as KubeObject);
            const user = (review.status as { userInfo: { username: string; groups: string[] } })
              .userInfo;
            assert.equal(user.username, "system:node:ckpt");
            assert.ok(user.groups.includes("system:nodes"));
          } finally {
            client.close();
          }
          assert.doesNotMatch(agent.logs(), /forbidden|Forbidden|"code":403\b|\b403 Forbidden/);
        },
      );

      await t.step("an allowed caller gets 200 and a 0600 archive with the memory", async () => {
        const res = await post(agent.port, path, admin);
        assert.equal(res.status, 200, res.body);
        const archive = JSON.parse(res.body).items[0] as string;
        assert.ok(
          archive.startsWith(`${dir}/root/checkpoints/checkpoint-holder-ckpt_default-main-`),
        );
        const st = await Deno.stat(archive);
        assert.equal(st.mode! & 0o777, 0o600);
        const bytes = await Deno.readFile(archive);
        const needle = new TextEncoder().encode(secret + "!");
        assert.ok(indexOf(bytes, needle) >= 0, "the archive holds the string from memory");
        await Deno.remove(archive);
      });

      await t.step("a client certificate signed by the cluster's client CA: 200", async () => {
        const res = await post(agent.port, path, { cert: ts.server.pki.adminClient });
        assert.equal(res.status, 200, res.body);
        await Deno.remove(JSON.parse(res.body).items[0]);
      });

      await t.step("a client certificate from another CA, a bad token, none: 401", async () => {
        const stranger = await issueCertificate({
          commonName: "kubernetes-admin",
          organizations: ["system:masters"],
          usages: "client",
        });
        assert.equal((await post(agent.port, path, { cert: stranger })).status, 401);
        assert.equal((await post(agent.port, path, { token: "not-a-token" })).status, 401);
        assert.equal((await post(agent.port, path)).status, 401);
      });

      await t.step("a user without nodes/checkpoint: 403, then 200 once granted", async () => {
        const denied = await post(agent.port, path, { token: userToken });
        assert.equal(denied.status, 403, denied.body);
        assert.match(denied.body, /checkpointer/);
        await ts.client.create({ ...RBAC, resource: "clusterroles" }, {
          metadata: { name: "node-checkpointer" },
          rules: [{ apiGroups: [""], resources: ["nodes/checkpoint"], verbs: ["create"] }],
        } as KubeObject);
        await ts.client.create({ ...RBAC, resource: "clusterrolebindings" }, {
          metadata: { name: "checkpointer" },
          roleRef: { apiGroup: RBAC.group, kind: "ClusterRole", name: "node-checkpointer" },
          subjects: [{ apiGroup: RBAC.group, kind: "User", name: "checkpointer" }],
        } as KubeObject);
        const granted = await eventually("the binding to take effect", async () => {
          const res = await post(agent.port, path, { token: userToken });
          return res.status === 200 ? res : undefined;
        }, AGENT_POLL);
        const archive = JSON.parse(granted.body).items[0] as string;
        assert.equal((await Deno.stat(archive)).mode! & 0o777, 0o600);
        await Deno.remove(archive);
      });

      await t.step("unknown container, pod or namespace: 404", async () => {
        for (
          const p of ["default/holder-ckpt/nope", "default/nope/main", "nope/holder-ckpt/main"]
        ) {
          assert.equal((await post(agent.port, `/checkpoint/${p}`, admin)).status, 404, p);
        }
      });

      await t.step("with the ContainerCheckpoint gate off: 404", async () => {
        await eventually("the gate-off pod running", async () => {
          const pod = await ts.client.get<KubeObject>({ ...PODS, name: "holder-ckpt-off" });
          return (pod.status as { phase?: string }).phase === "Running" ? pod : undefined;
        }, AGENT_POLL);
        const res = await post(gateOff.port, "/checkpoint/default/holder-ckpt-off/main", admin);
        assert.equal(res.status, 404);
      });

      await t.step("deleting the pod stops its container and removes the pod", async () => {
        await ts.client.delete({ ...PODS, name: "holder-ckpt" });
        await eventually("the pod gone", async () => {
          try {
            await ts.client.get({ ...PODS, name: "holder-ckpt" });
            return undefined;
          } catch (err) {
            return (err as { code?: number }).code === 404 ? true : undefined;
          }
        }, AGENT_POLL);
      });
    } finally {
      await agent.stop();
      await gateOff.stop();
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
