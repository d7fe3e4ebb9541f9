/**
 * End-to-end: a pod without a node is scheduled by the API server onto a real node agent's
 * node, which runs it (process runtime).
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { startTestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";

const NODE = "sched-agent";
const PODS = { version: "v1", resource: "pods", namespace: "default" };

Deno.test("scheduler places a pending pod on a node agent, which runs it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scheduler-agent-e2e-" });
  const ts = await startTestServer([], { dir: `${dir}/api`, keepDir: true });
  const kubeconfig = await writeNodeKubeconfig(ts.server, NODE, `${dir}/node.kubeconfig`);
  const agent = await startAgentProcess({ kubeconfig, rootDir: `${dir}/root`, nodeName: NODE });
  try {
    await ts.client.create(PODS, {
      metadata: { name: "sleeper", namespace: "default" },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: "main", image: "x", command: ["sleep", "600"] }],
      },
    } as KubeObject);
    const pod = await eventually("sleeper running", async () => {
      const p = await ts.client.get<KubeObject>({ ...PODS, name: "sleeper" });
      const phase = (p.status as Record<string, unknown> | undefined)?.phase;
      return phase === "Running" ? p : undefined;
    }, AGENT_POLL);
    assert.equal((pod.spec as Record<string, unknown>).nodeName, NODE);
    await ts.client.delete({ ...PODS, name: "sleeper" });
  } finally {
    await agent.stop();
    await ts.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
