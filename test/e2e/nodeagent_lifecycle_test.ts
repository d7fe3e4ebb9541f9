import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { type KubectlTarget, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";
import { eventually } from "../support/eventually.ts";

const NODE = { version: "v1", resource: "nodes", name: "agent-e2e" };
const LEASE = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  namespace: "kube-node-lease",
  name: "agent-e2e",
};
const GRACE = ["--node-monitor-grace-period=5s"];

type Cond = { type: string; status: string };

function conds(n: KubeObject): Record<string, string> {
  const cs = ((n.status ?? {}) as { conditions?: Cond[] }).conditions ?? [];
  return Object.fromEntries(cs.map((c) => [c.type, c.status]));
}

function taints(n: KubeObject): string[] {
  return (((n.spec ?? {}) as { taints?: { key: string; effect: string }[] }).taints ?? [])
    .map((t) => `${t.key}:${t.effect}`).sort();
}

async function renewTime(ts: TestServer): Promise<string> {
  const lease = await ts.client.get<KubeObject>(LEASE);
  return String((lease.spec as Record<string, unknown>).renewTime);
}

async function kubectl(target: KubectlTarget, ...args: string[]): Promise<string | undefined> {
  if (skipWithoutKubectl("the kubectl checks")) return undefined;
  const r = await runKubectl(target, args);
  const text = r.stdout + r.stderr;
  assert.ok(r.code === 0, text);
  return text;
}

Deno.test({
  name:
    "node agent registers, renews its lease, survives the API server going away, and is marked unreachable when killed",
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "nodeagent-e2e-" });
    let ts = await startTestServer(GRACE, { dir: `${dir}/api`, keepDir: true });
    const port = ts.server.port;
    const kubeconfig = ts.server.kubeconfigPath;
    // The agent runs as its node, system:node:agent-e2e in system:nodes, like a kubelet.
    const nodeKubeconfig = await writeNodeKubeconfig(
      ts.server,
      "agent-e2e",
      `${dir}/node.kubeconfig`,
    );
    let agent = await startAgentProcess({
      kubeconfig: nodeKubeconfig,
      rootDir: `${dir}/root`,
      nodeName: "agent-e2e",
      args: ["--node-labels=topology.kubernetes.io/zone=zone-a"],
    });
    try {
      await t.step("the Node registers with labels, capacity and nodeInfo", async () => {
        const node = await eventually(
          "the Node",
          () => ts.client.get<KubeObject>(NODE),
          AGENT_POLL,
        );
        const labels = node.metadata.labels ?? {};
        assert.equal(labels["kubernetes.io/hostname"], "agent-e2e");
        assert.equal(labels["kubernetes.io/os"], "linux");
        assert.ok(labels["kubernetes.io/arch"]);
        assert.equal(labels["topology.kubernetes.io/zone"], "zone-a");
        const status = node.status as Record<string, Record<string, string>>;
        for (const r of ["cpu", "memory", "pods"]) {
          assert.ok(status.capacity[r], `capacity.${r}`);
          assert.ok(status.allocatable[r], `allocatable.${r}`);
        }
        assert.equal(status.nodeInfo.kubeletVersion, "v1.32.0");
        assert.match(status.nodeInfo.containerRuntimeVersion, /^process:\/\//);
        assert.equal(status.nodeInfo.operatingSystem, "linux");
        assert.ok(status.nodeInfo.bootID);
        assert.deepEqual(Object.keys(conds(node)).sort(), [
          "DiskPressure",
          "MemoryPressure",
          "NetworkUnavailable",
          "PIDPressure",
          "Ready",
        ]);
        assert.equal(conds(node).Ready, "True");
      });

      await t.step("the Lease is owned by the Node and renews", async () => {
        const lease = await eventually(
          "the Lease",
          () => ts.client.get<KubeObject>(LEASE),
          AGENT_POLL,
        );
        assert.equal((lease.metadata.ownerReferences ?? [])[0]?.kind, "Node");
        assert.equal((lease.spec as Record<string, unknown>).holderIdentity, "agent-e2e");
        const first = await renewTime(ts);
        await eventually(
          "a renewal",
          async () => (await renewTime(ts)) !== first || undefined,
          AGENT_POLL,
        );
      });

      await t.step("kubectl shows the node, its conditions, capacity and lease", async () => {
        const wide = await kubectl({ kubeconfig, home: dir }, "get", "nodes", "-o", "wide");
        if (wide === undefined) return;
        assert.match(wide, /agent-e2e/);
        const described = await kubectl({ kubeconfig, home: dir }, "describe", "node", "agent-e2e");
        for (
          const s of ["Conditions:", "KubeletReady", "Capacity:", "HolderIdentity:  agent-e2e"]
        ) {
          assert.ok(described!.includes(s), `describe node lacks ${s}:\n${described}`);
        }
      });

      await t.step("the API server stops for 30 s and the agent recovers by itself", async () => {
        await ts.close(); // keeps the data directory
        await new Promise((r) => setTimeout(r, 30_000)); // the outage itself
        ts = await startTestServer([...GRACE, `--secure-port=${port}`], {
          dir: `${dir}/api`,
          keepDir: true,
        });
        const restarted = Date.now();
        await eventually("a renewal after the restart", async () => {
          const rt = Date.parse(await renewTime(ts));
          return rt > restarted || undefined;
        }, AGENT_POLL);
        assert.equal(conds(await ts.client.get<KubeObject>(NODE)).Ready, "True");
      });

      await t.step("the agent, as its node, was never denied", () => {
        assert.doesNotMatch(agent.logs(), /forbidden|Forbidden|"code":403\b|\b403 Forbidden/);
      });

      await t.step("killing the agent makes the node Unknown and unreachable", async () => {
        await agent.stop("SIGKILL");
        const node = await eventually("Ready=Unknown and the taints", async () => {
          const n = await ts.client.get<KubeObject>(NODE);
          return conds(n).Ready === "Unknown" && taints(n).length === 2 ? n : undefined;
        }, AGENT_POLL);
        assert.deepEqual(taints(node), [
          "node.kubernetes.io/unreachable:NoExecute",
          "node.kubernetes.io/unreachable:NoSchedule",
        ]);
        assert.equal(conds(node).MemoryPressure, "Unknown");
      });

      await t.step("restarting the agent clears the taints", async () => {
        agent = await startAgentProcess({
          kubeconfig: nodeKubeconfig,
          rootDir: `${dir}/root`,
          nodeName: "agent-e2e",
        });
        await eventually("Ready=True without taints", async () => {
          const n = await ts.client.get<KubeObject>(NODE);
          return conds(n).Ready === "True" && taints(n).length === 0 ? n : undefined;
        }, AGENT_POLL);
      });
    } finally {
      await agent.stop();
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
