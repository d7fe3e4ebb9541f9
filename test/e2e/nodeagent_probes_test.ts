/**
 * End-to-end: a real node agent (process runtime) runs probes, restarts and terminates
 * containers as the kubelet does: a failed liveness probe restarts the container (RESTARTS in
 * `kubectl get pods`), a readiness probe flips Ready, a crashing container reaches
 * CrashLoopBackOff, and a deleted pod runs its preStop hook before SIGTERM.
 */
import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually } from "../support/eventually.ts";
import { runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";

const NODE = "probes-agent";
const PODS = { version: "v1", resource: "pods", namespace: "default" };
const EVENTS = { version: "v1", resource: "events", namespace: "default" };

type ContainerStatus = {
  name: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state: Record<string, Record<string, unknown>>;
  lastState: Record<string, Record<string, unknown>>;
};
type PodStatus = {
  phase?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  hostIP?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  containerStatuses?: ContainerStatus[];
};

async function status(ts: TestServer, name: string): Promise<PodStatus> {
  return ((await ts.client.get<KubeObject>({ ...PODS, name })).status ?? {}) as PodStatus;
}

function cond(s: PodStatus, type: string) {
  return s.conditions?.find((c) => c.type === type);
}

async function events(ts: TestServer, pod: string): Promise<string[]> {
  const list = await ts.client.list<KubeObject>(EVENTS);
  return (list.items as Record<string, unknown>[])
    .filter((e) => (e.involvedObject as { name: string }).name === pod)
    .map((e) => `${e.type} ${e.reason} ${e.message}`);
}

function pod(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    metadata: { name, namespace: "default" },
    spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, ...spec },
  } as KubeObject;
}

Deno.test("node agent probes, restarts and terminates containers as the kubelet does", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "nodeagent-probes-e2e-" });
  const ts = await startTestServer([], { dir: `${dir}/api`, keepDir: true });
  const kubeconfig = await writeNodeKubeconfig(ts.server, NODE, `${dir}/node.kubeconfig`);
  const rootDir = `${dir}/root`;
  const agent = await startAgentProcess({ kubeconfig, rootDir, nodeName: NODE });
  const kubectl = { kubeconfig: ts.server.kubeconfigPath, home: dir };
  try {
    await t.step("a failed liveness probe kills and restarts the container", async () => {
      await ts.client.create(
        PODS,
        pod("live", {
          containers: [{
            name: "app",
            image: "x",
            // Healthy for the first start only: the restarted container stays healthy.
            command: [
              "sh",
              "-c",
              "if [ -e started ]; then touch healthy; fi; touch started; exec sleep 600",
            ],
            livenessProbe: {
              exec: { command: ["cat", "healthy"] },
              periodSeconds: 1,
              // Two failures: the restarted container has a moment to create the file.
              failureThreshold: 2,
            },
          }],
        }),
      );
      const s = await eventually("a restart", async () => {
        const s = await status(ts, "live");
        const c = s.containerStatuses?.[0];
        return c && c.restartCount >= 1 && "running" in c.state ? s : undefined;
      }, AGENT_POLL);
      const c = s.containerStatuses![0];
      assert.ok("terminated" in c.lastState, JSON.stringify(c));
      assert.equal(s.phase, "Running");
      const want = [
        /^Normal Started Started container app$/,
        /^Warning Unhealthy Liveness probe failed: \S*cat: healthy: /,
        /^Normal Killing Container app failed liveness probe, will be restarted$/,
      ];
      let seen: string[] = [];
      await eventually("the events", async () => {
        seen = await events(ts, "live");
        return want.every((w) => seen.some((e) => w.test(e)));
      }, { ...AGENT_POLL, timeoutMs: 20_000 }).catch((err) => {
        const logs = agent.logs().split("\n").filter((l) => /event|warn/i.test(l));
        throw new Error(`${err.message}:\n${seen.join("\n")}\n${logs.join("\n")}`);
      });
      if (skipWithoutKubectl("kubectl get pods RESTARTS")) return;
      const r = await runKubectl(kubectl, ["get", "pod", "live"]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^live\s+1\/1\s+Running\s+[1-9]/m, r.stdout);
    });

    await t.step("a readiness probe flips Ready and the pod reports its IPs", async () => {
      const made = await ts.client.create(
        PODS,
        pod("ready", {
          containers: [{
            name: "app",
            image: "x",
            command: ["sleep", "600"],
            readinessProbe: { exec: { command: ["cat", "ready"] }, periodSeconds: 1 },
          }],
        }),
      );
      const work = `${rootDir}/pods/${made.metadata.uid}/containers/app/work`;
      const running = await eventually("running, not ready", async () => {
        const s = await status(ts, "ready");
        const c = s.containerStatuses?.[0];
        return c && "running" in c.state ? s : undefined;
      }, AGENT_POLL);
      assert.equal(running.containerStatuses![0].ready, false);
      assert.equal(cond(running, "Ready")?.status, "False");
      assert.equal(cond(running, "Ready")?.message, "containers with unready status: [app]");
      assert.ok(running.podIP);
      assert.equal(running.podIP, running.hostIP, "process runtime pods share the host network");
      assert.deepEqual(running.podIPs, [{ ip: running.podIP }]);
      await Deno.writeTextFile(`${work}/ready`, "yes");
      await eventually("Ready", async () => {
        const s = await status(ts, "ready");
        return cond(s, "Ready")?.status === "True" &&
          cond(s, "ContainersReady")?.status === "True" &&
          s.containerStatuses?.[0].ready;
      }, AGENT_POLL);
      await Deno.remove(`${work}/ready`);
      await eventually("not Ready again", async () => {
        const s = await status(ts, "ready");
        return cond(s, "Ready")?.status === "False" && s.containerStatuses?.[0].ready === false;
      }, AGENT_POLL);
    });

    await t.step("init containers run in order before the containers", async () => {
      const order = `${dir}/init-order.txt`;
      await ts.client.create(
        PODS,
        pod("inits", {
          initContainers: [
            { name: "one", image: "x", command: ["sh", "-c", `echo one >> ${order}`] },
            { name: "two", image: "x", command: ["sh", "-c", `echo two >> ${order}`] },
          ],
          containers: [{
            name: "app",
            image: "x",
            command: ["sh", "-c", `echo app >> ${order}; exec sleep 600`],
          }],
        }),
      );
      const s = await eventually("inits done and app running", async () => {
        const s = await status(ts, "inits") as PodStatus & {
          initContainerStatuses?: ContainerStatus[];
        };
        return s.containerStatuses?.[0] && "running" in s.containerStatuses[0].state
          ? s
          : undefined;
      }, AGENT_POLL);
      assert.deepEqual(
        s.initContainerStatuses?.map((c) => [c.name, c.state.terminated?.reason]),
        [["one", "Completed"], ["two", "Completed"]],
      );
      assert.equal(cond(s, "Initialized")?.status, "True");
      assert.equal(await Deno.readTextFile(order), "one\ntwo\napp\n");
    });

    await t.step("kubectl debug adds an ephemeral container that the agent runs", async () => {
      if (skipWithoutKubectl("kubectl debug")) return;
      const out = `${dir}/debugged.txt`;
      const r = await runKubectl(kubectl, [
        "debug",
        "inits",
        "--image=x",
        "-c",
        "debugger",
        "--",
        "sh",
        "-c",
        `echo debugged > ${out}`,
      ]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const c = await eventually("the ephemeral container's status", async () => {
        const s = (await status(ts, "inits")) as PodStatus & {
          ephemeralContainerStatuses?: ContainerStatus[];
        };
        const c = s.ephemeralContainerStatuses?.[0];
        return c?.state.terminated ? c : undefined;
      }, AGENT_POLL);
      assert.equal(c.name, "debugger");
      assert.equal(c.state.terminated.exitCode, 0);
      assert.equal(await Deno.readTextFile(out), "debugged\n");
    });

    await t.step("a crashing container reaches CrashLoopBackOff", async () => {
      await ts.client.create(
        PODS,
        pod("crash", {
          containers: [{ name: "app", image: "x", command: ["sh", "-c", "exit 3"] }],
        }),
      );
      const c = await eventually("CrashLoopBackOff", async () => {
        const c = (await status(ts, "crash")).containerStatuses?.[0];
        return c?.state.waiting?.reason === "CrashLoopBackOff" ? c : undefined;
      }, AGENT_POLL);
      assert.match(
        String(c.state.waiting.message),
        /^back-off 10s restarting failed container=app pod=crash_default\(/,
      );
      assert.equal(c.lastState.terminated?.exitCode, 3);
      assert.ok(c.restartCount >= 1);
      const seen = await eventually("the BackOff event", async () => {
        const e = await events(ts, "crash");
        return e.some((x) => x.startsWith("Warning BackOff")) ? e : undefined;
      }, AGENT_POLL);
      assert.ok(
        seen.some((e) =>
          /^Warning BackOff Back-off restarting failed container app in pod crash_default\(/.test(e)
        ),
        seen.join("\n"),
      );
      if (skipWithoutKubectl("kubectl get pods CrashLoopBackOff")) return;
      const r = await runKubectl(kubectl, ["get", "pod", "crash"]);
      assert.match(r.stdout, /^crash\s+0\/1\s+CrashLoopBackOff\s+[1-9]/m, r.stdout);
    });

    await t.step("deleting a pod runs preStop, then SIGTERM, then removes it", async () => {
      const order = `${dir}/order.txt`;
      await ts.client.create(
        PODS,
        pod("graceful", {
          terminationGracePeriodSeconds: 20,
          containers: [{
            name: "app",
            image: "x",
            command: [
              "sh",
              "-c",
              `trap 'echo TERM >> ${order}; exit 0' TERM; while true; do sleep 0.2; done`,
            ],
            lifecycle: {
              preStop: { exec: { command: ["sh", "-c", `echo preStop >> ${order}`] } },
            },
          }],
        }),
      );
      await eventually("graceful running", async () => {
        const c = (await status(ts, "graceful")).containerStatuses?.[0];
        return c && "running" in c.state;
      }, AGENT_POLL);
      await ts.client.delete({ ...PODS, name: "graceful" });
      await eventually("the pod gone", async () => {
        try {
          await ts.client.get({ ...PODS, name: "graceful" });
          return false;
        } catch (err) {
          return (err as { code?: number }).code === 404;
        }
      }, AGENT_POLL);
      assert.equal(await Deno.readTextFile(order), "preStop\nTERM\n");
      const seen = await events(ts, "graceful");
      assert.ok(seen.includes("Normal Killing Stopping container app"), seen.join("\n"));
    });
  } finally {
    await agent.stop();
    await ts.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
