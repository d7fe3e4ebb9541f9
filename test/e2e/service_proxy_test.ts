/**
 * End-to-end: a node agent's built-in service proxy (user space; and nftables where the agent
 * runs as root with nft) makes a Service's NodePort, and its ClusterIP where the mechanism
 * allows, reach a pod's HTTP server (`python3 -m http.server`, process runtime, host network),
 * and stops when the endpoint is not ready or gone. The Service has no selector and the test
 * writes its EndpointSlice itself, as a controller would.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { startTestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";
import { runIp } from "../../nodeagent/proxy/cluster_ip_addresses.ts";
import { nftUsable } from "../../nodeagent/proxy/nft_proxy.ts";

const NS = "default";
const PODS = { version: "v1", resource: "pods", namespace: NS };
const SERVICES = { version: "v1", resource: "services", namespace: NS };
const SLICES = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
  namespace: NS,
};
const POLL = { ...AGENT_POLL, intervalMs: 300 };

function freePort(): number {
  const l = Deno.listen({ hostname: "0.0.0.0", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The status of GET url, or "unreachable". */
async function probe(url: string): Promise<number | "unreachable"> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return "unreachable";
  }
}

function slice(podIP: string, podPort: number, ready: boolean): KubeObject {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: "web-1", namespace: NS, labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4",
    endpoints: [{ addresses: [podIP], conditions: { ready } }],
    ports: [{ name: "http", port: podPort, protocol: "TCP" }],
  } as KubeObject;
}

const python = await new Deno.Command("python3", { args: ["-V"] }).output().then(
  (o) => o.success,
  () => false,
);
const root = Deno.uid() === 0;
const iproute2 = root && (await runIp(["-V"])).ok;
const nft = await nftUsable();
const MODES: { mode: string; clusterIP: boolean; why?: string }[] = [
  { mode: "userspace", clusterIP: iproute2 },
  { mode: "nftables", clusterIP: true, why: nft ? undefined : "needs root and a working nft" },
];
if (!python) console.warn("service proxy e2e skipped: python3 is absent");
if (!iproute2) console.warn("service proxy e2e: ClusterIP checks skipped (need root and iproute2)");

for (const m of MODES) {
  Deno.test({
    name: `service proxy (${m.mode}): NodePort and ClusterIP reach a pod's ready endpoint`,
    ignore: !python || m.why !== undefined,
    fn: (t) => proxyScenario(t, m.mode, m.clusterIP),
  });
  if (m.why) console.warn(`service proxy e2e (${m.mode}) skipped: ${m.why}`);
}

async function proxyScenario(t: Deno.TestContext, mode: string, checkClusterIP: boolean) {
  const dir = await Deno.makeTempDir({ prefix: "service-proxy-e2e-" });
  // A range of its own, so parallel runs on one host do not share cluster IPs.
  const range = `10.${200 + Math.floor(Math.random() * 50)}.${
    Math.floor(Math.random() * 256)
  }.0/24`;
  const ts = await startTestServer([`--service-cluster-ip-range=${range}`], {
    dir: `${dir}/api`,
    keepDir: true,
  });
  const node = `proxy-${mode}`;
  const kubeconfig = await writeNodeKubeconfig(ts.server, node, `${dir}/node.kubeconfig`);
  const agent = await startAgentProcess({
    kubeconfig,
    rootDir: `${dir}/root`,
    nodeName: node,
    args: [`--proxy-mode=${mode}`],
  });
  const podPort = freePort();
  let clusterIP = "";
  try {
    await ts.client.create(PODS, {
      metadata: { name: "web", namespace: NS },
      spec: {
        nodeName: node,
        terminationGracePeriodSeconds: 1,
        containers: [{
          name: "http",
          image: "x",
          command: ["python3", "-m", "http.server", String(podPort), "--bind", "0.0.0.0"],
        }],
      },
    } as KubeObject);
    const pod = await eventually("the pod running", async () => {
      const p = await ts.client.get<KubeObject>({ ...PODS, name: "web" });
      const s = (p.status ?? {}) as { phase?: string; podIP?: string };
      return s.phase === "Running" && s.podIP ? s : undefined;
    }, POLL);
    const podIP = pod.podIP!;
    await eventually(
      "the pod serving",
      async () => (await probe(`http://${podIP}:${podPort}/`)) === 200,
      POLL,
    );
    const svc = await ts.client.create<KubeObject>(SERVICES, {
      metadata: { name: "web", namespace: NS },
      spec: { type: "NodePort", ports: [{ name: "http", port: 80, targetPort: podPort }] },
    } as KubeObject);
    const spec = svc.spec as { clusterIP: string; ports: { nodePort: number }[] };
    clusterIP = spec.clusterIP;
    const urls = [`http://${podIP}:${spec.ports[0].nodePort}/`];
    if (checkClusterIP) urls.push(`http://${clusterIP}:80/`);
    await ts.client.create(SLICES, slice(podIP, podPort, true));

    await t.step("the NodePort and the ClusterIP reach the endpoint", async () => {
      for (const url of urls) {
        await eventually(`${url} answering`, async () => (await probe(url)) === 200, POLL);
      }
      assert.match(agent.logs(), new RegExp(`"service proxy started".*"mode":"${mode}"`));
    });

    await t.step("an endpoint that is not ready is not used", async () => {
      // An idle connection through the NodePort, open while the endpoint is ready.
      const held = await Deno.connect({ hostname: podIP, port: spec.ports[0].nodePort });
      await ts.client.update({ ...SLICES, name: "web-1" }, slice(podIP, podPort, false));
      if (mode === "userspace") {
        // The user-space proxy ends connections to endpoints that are no longer ready.
        const ended = await held.read(new Uint8Array(16)).catch(() => null);
        assert.equal(ended, null, "the held connection ends");
      }
      held.close();
      for (const url of urls) {
        await eventually(`${url} refused`, async () => (await probe(url)) !== 200, POLL);
      }
      await ts.client.update({ ...SLICES, name: "web-1" }, slice(podIP, podPort, true));
      for (const url of urls) {
        await eventually(`${url} back`, async () => (await probe(url)) === 200, POLL);
      }
    });

    await t.step("the endpoint goes away with its pod", async () => {
      await ts.client.delete({ ...PODS, name: "web" });
      await ts.client.delete({ ...SLICES, name: "web-1" });
      for (const url of urls) {
        await eventually(`${url} gone`, async () => (await probe(url)) !== 200, POLL);
      }
    });

    await t.step("the node agent never was denied reading Services or EndpointSlices", () => {
      assert.doesNotMatch(agent.logs(), /cannot follow/);
    });
  } finally {
    await agent.stop();
    await ts.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  if (checkClusterIP && clusterIP) {
    const out = await new Deno.Command("ip", { args: ["-o", "addr"] }).output();
    assert.ok(
      !new TextDecoder().decode(out.stdout).includes(`${clusterIP}/`),
      "the cluster IP is removed when the agent stops",
    );
  }
}
