import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { eventually, startAgentProcess } from "../nodeagent/_agent_process.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";

const PODS = { version: "v1", resource: "pods", namespace: "default" };

Deno.test({
  name:
    "node agent checkpoint endpoint: 200 with a 0600 archive holding the container's memory, 401, 404",
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "nodeagent-ckpt-" });
    const ts = await startTestServer([], { dir: `${dir}/api`, keepDir: true });
    const kubeconfig = ts.server.kubeconfigPath;
    const agent = await startAgentProcess({ kubeconfig, rootDir: `${dir}/root`, nodeName: "ckpt" });
    const gateOff = await startAgentProcess({
      kubeconfig,
      rootDir: `${dir}/root-off`,
      nodeName: "ckpt-off",
      args: ["--feature-gates=ContainerCheckpoint=false"],
    });
    const secret = `SECRET-${crypto.randomUUID()}`;
    // The agents' certificates are self-signed: trust each one's own.
    const insecure = async (port: number, path: string, token?: string) => {
      const certPem = await Deno.readTextFile(
        `${port === agent.port ? `${dir}/root` : `${dir}/root-off`}/pki/nodeagent.crt`,
      );
      const client = Deno.createHttpClient({ caCerts: [certPem] });
      try {
        const res = await fetch(`https://localhost:${port}${path}`, {
          method: "POST",
          headers: token ? { authorization: `Bearer ${token}` } : {},
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
      });
      const token = ts.server.adminToken;

      await t.step("an allowed caller gets 200 and a 0600 archive with the memory", async () => {
        const res = await insecure(agent.port, "/checkpoint/default/holder-ckpt/main", token);
        assert.equal(res.status, 200, res.body);
        const path = JSON.parse(res.body).items[0] as string;
        assert.ok(path.startsWith(`${dir}/root/checkpoints/checkpoint-holder-ckpt_default-main-`));
        const st = await Deno.stat(path);
        assert.equal(st.mode! & 0o777, 0o600);
        const bytes = await Deno.readFile(path);
        const needle = new TextEncoder().encode(secret + "!");
        assert.ok(indexOf(bytes, needle) >= 0, "the archive holds the string from memory");
      });

      await t.step("without credentials: 401", async () => {
        const res = await insecure(agent.port, "/checkpoint/default/holder-ckpt/main");
        assert.equal(res.status, 401);
      });

      await t.step("unknown container, pod or namespace: 404", async () => {
        for (
          const p of ["default/holder-ckpt/nope", "default/nope/main", "nope/holder-ckpt/main"]
        ) {
          assert.equal((await insecure(agent.port, `/checkpoint/${p}`, token)).status, 404, p);
        }
      });

      await t.step("with the ContainerCheckpoint gate off: 404", async () => {
        await eventually("the gate-off pod running", async () => {
          const pod = await ts.client.get<KubeObject>({ ...PODS, name: "holder-ckpt-off" });
          return (pod.status as { phase?: string }).phase === "Running" ? pod : undefined;
        });
        const res = await insecure(gateOff.port, "/checkpoint/default/holder-ckpt-off/main", token);
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
        });
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
