/**
 * End-to-end acceptance of the cluster: one API server and two real node agents (process
 * runtime) driven by kubectl 1.32 as against kube. `kubectl create deployment` reaches 3/3
 * ready spread over both nodes; `kubectl scale`, `rollout restart`, `rollout status` and
 * `rollout undo` behave as against kube; a DaemonSet lands one pod per node; a Job runs to
 * completion and is cleaned after `ttlSecondsAfterFinished`; a CronJob fires on schedule;
 * `kubectl logs` (and `-f`), `kubectl exec` (exit codes), `kubectl port-forward` to pods of both
 * nodes (the server verifying the agents' CA-signed serving certificates) and RESTARTS after a
 * liveness failure; the Python client's pod tests; and killing a node agent moves its pods to
 * the other node once their toleration of the unreachable taint expires. Skips (with a message)
 * without kubectl.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { eventually, type PollOptions } from "../support/eventually.ts";
import {
  KUBECTL,
  kubectlOk,
  type KubectlTarget,
  runKubectl,
  skipWithoutKubectl,
  spawnKubectl,
} from "../support/kubectl.ts";
import { type AgentProcess, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";

const NODE_A = "accept-a";
const NODE_B = "accept-b";
const SLOW: PollOptions = { timeoutMs: 150_000, intervalMs: 500, retryErrors: true };

// deno-lint-ignore no-explicit-any
type Json = any;

/** kubectl against the test cluster: `ok` asserts success, `json` parses `-o json`. */
function kubectl(k: KubectlTarget) {
  const ok = async (...args: string[]) => kubectlOk(await runKubectl(k, args));
  return {
    run: (...args: string[]) => runKubectl(k, args),
    ok,
    apply: async (yaml: string) => kubectlOk(await runKubectl(k, ["apply", "-f", "-"], yaml)),
    json: async (...args: string[]): Promise<Json> => JSON.parse(await ok(...args, "-o", "json")),
  };
}
type Kubectl = ReturnType<typeof kubectl>;

/** The pods of a label selector that are not terminating. */
async function livePods(k: Kubectl, selector: string): Promise<Json[]> {
  const list = await k.json("get", "pods", "-l", selector);
  return list.items.filter((p: Json) => !p.metadata.deletionTimestamp);
}

function isReady(p: Json): boolean {
  return p.status?.conditions?.some((c: Json) => c.type === "Ready" && c.status === "True");
}

async function rolledOut(k: Kubectl): Promise<void> {
  const out = await k.ok("rollout", "status", "deployment/web", "--timeout=150s");
  assert.match(out, /deployment "web" successfully rolled out/);
}

async function deploymentSteps(t: Deno.TestContext, k: Kubectl): Promise<void> {
  await t.step("kubectl create deployment reaches 3/3 ready over both nodes", async () => {
    const created = await k.ok(
      "create",
      "deployment",
      "web",
      "--image=x",
      "--replicas=3",
      "--",
      "/bin/sh",
      "-c",
      "echo web started; exec sleep 600",
    );
    assert.equal(created, "deployment.apps/web created\n");
    await rolledOut(k);
    assert.match(await k.ok("get", "deployment", "web"), /^web\s+3\/3\s+3\s+3\s+/m);
    const pods = await livePods(k, "app=web");
    assert.equal(pods.length, 3);
    assert.ok(pods.every(isReady));
    assert.deepEqual(
      [...new Set(pods.map((p) => p.spec.nodeName))].sort(),
      [NODE_A, NODE_B],
      "spread over both nodes",
    );
  });

  await t.step("kubectl scale, rollout restart, rollout undo", async () => {
    assert.equal(
      await k.ok("scale", "deployment", "web", "--replicas=4"),
      "deployment.apps/web scaled\n",
    );
    await rolledOut(k);
    assert.equal((await k.json("get", "deployment", "web")).status.readyReplicas, 4);
    await k.ok("scale", "deployment", "web", "--replicas=3");
    await rolledOut(k);

    const before = new Set((await livePods(k, "app=web")).map((p) => p.metadata.name));
    assert.match(await k.ok("rollout", "restart", "deployment/web"), /web restarted/);
    await rolledOut(k);
    const d = await k.json("get", "deployment", "web");
    assert.equal(d.metadata.annotations["deployment.kubernetes.io/revision"], "2");
    assert.ok(d.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]);
    const after = await eventually("only the new pods", async () => {
      const pods = await livePods(k, "app=web");
      return pods.length === 3 && pods.every(isReady) ? pods : undefined;
    }, SLOW);
    assert.ok(after.every((p) => !before.has(p.metadata.name)), "every pod replaced");

    assert.match(await k.ok("rollout", "history", "deployment/web"), /^1\s.*\n2\s/m);
    assert.match(await k.ok("rollout", "undo", "deployment/web"), /web rolled back/);
    await rolledOut(k);
    const undone = await k.json("get", "deployment", "web");
    assert.equal(undone.metadata.annotations["deployment.kubernetes.io/revision"], "3");
    assert.equal(
      undone.spec.template.metadata.annotations?.["kubectl.kubernetes.io/restartedAt"],
      undefined,
      "the template of revision 1 is back",
    );
    assert.equal(undone.status.readyReplicas, 3);
  });
}

const DAEMONSET = `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agentd}
spec:
  selector: {matchLabels: {app: agentd}}
  template:
    metadata: {labels: {app: agentd}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: d, image: x, command: ["sleep", "600"]}
`;

const JOB = `
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  ttlSecondsAfterFinished: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: j, image: x, command: ["sh", "-c", "echo job done"]}
`;

const CRONJOB = `
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - {name: c, image: x, command: ["sh", "-c", "echo tick"]}
`;

async function workloadSteps(t: Deno.TestContext, k: Kubectl): Promise<void> {
  await t.step("a DaemonSet lands one pod per node", async () => {
    await k.apply(DAEMONSET);
    const out = await k.ok("rollout", "status", "daemonset/agentd", "--timeout=150s");
    assert.match(out, /daemon set "agentd" successfully rolled out/);
    const pods = await livePods(k, "app=agentd");
    assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), [NODE_A, NODE_B]);
    assert.match(await k.ok("get", "daemonset", "agentd"), /^agentd\s+2\s+2\s+2\s+2\s+2\s/m);
  });

  await t.step("a Job completes and is cleaned after ttlSecondsAfterFinished", async () => {
    await k.apply(JOB);
    const out = await k.ok("wait", "--for=condition=complete", "job/once", "--timeout=150s");
    assert.match(out, /job.batch\/once condition met/);
    await eventually("the job and its pods gone", async () => {
      const jobs = await k.json("get", "jobs");
      const pods = await k.json("get", "pods", "-l", "job-name=once");
      return jobs.items.every((j: Json) => j.metadata.name !== "once") && pods.items.length === 0;
    }, SLOW);
  });
}

const LIVENESS = `
apiVersion: v1
kind: Pod
metadata: {name: live}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: x
    command: ["sh", "-c", "if [ -e started ]; then touch healthy; fi; touch started; exec sleep 600"]
    livenessProbe:
      exec: {command: ["cat", "healthy"]}
      periodSeconds: 1
      failureThreshold: 2
`;

async function podSteps(t: Deno.TestContext, k: Kubectl): Promise<void> {
  await t.step("kubectl logs and kubectl exec with an exit code", async () => {
    assert.match(await k.ok("logs", "deployment/web"), /^web started$/m);
    const r = await k.run("exec", "deployment/web", "--", "sh", "-c", "echo in-pod; exit 7");
    assert.equal(r.code, 7, r.stderr);
    assert.equal(r.stdout, "in-pod\n");
    assert.match(r.stderr, /command terminated with exit code 7/);
  });

  await t.step("a liveness failure restarts the container: RESTARTS", async () => {
    await k.apply(LIVENESS);
    await eventually("live restarted and running", async () => {
      const p = await k.json("get", "pod", "live");
      const c = p.status?.containerStatuses?.[0];
      return c?.restartCount >= 1 && c.state.running !== undefined;
    }, SLOW);
    assert.match(await k.ok("get", "pods", "live"), /^live\s+1\/1\s+Running\s+[1-9]/m);
  });
}

/** A pod on `node` serving its working directory over HTTP on `port` and logging a line a tick. */
function streamingPod(node: string, port: number): string {
  const script = `i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 0.2; done & ` +
    `exec /usr/bin/python3 -m http.server ${port} --bind 127.0.0.1`;
  return `
apiVersion: v1
kind: Pod
metadata: {name: stream-${node}}
spec:
  nodeName: ${node}
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: x, command: ["sh", "-c", ${JSON.stringify(script)}]}
`;
}

/** Reads a child's stdout until `pattern` matches (a minute at most), then kills it. */
async function readUntil(child: Deno.ChildProcess, pattern: RegExp): Promise<string> {
  let text = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = Date.now() + 60_000;
  try {
    while (!pattern.test(text) && Date.now() < deadline) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    child.kill("SIGKILL");
    await reader.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    await child.status;
  }
  return text;
}

/** `kubectl port-forward` to `pod`'s `port` and one page fetched through it. */
async function portForwardPage(target: KubectlTarget, pod: string, port: number) {
  const local = 40000 + Math.floor(Math.random() * 20000);
  const child = spawnKubectl(target, ["port-forward", `pod/${pod}`, `${local}:${port}`]);
  try {
    return await eventually(`a page of ${pod} through the forwarded port`, async () => {
      const res = await fetch(`http://127.0.0.1:${local}/`).catch(() => undefined);
      const text = await res?.text();
      return res?.status === 200 ? text : undefined;
    }, SLOW);
  } finally {
    child.kill("SIGKILL");
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    await child.status;
  }
}

async function streamingStep(t: Deno.TestContext, k: Kubectl, target: KubectlTarget) {
  await t.step("kubectl logs -f and port-forward reach pods on both nodes", async () => {
    const ports = [NODE_A, NODE_B].map(() => 20000 + Math.floor(Math.random() * 20000));
    for (const [i, node] of [NODE_A, NODE_B].entries()) await k.apply(streamingPod(node, ports[i]));
    for (const [i, node] of [NODE_A, NODE_B].entries()) {
      const pod = `stream-${node}`;
      await k.ok("wait", "--for=condition=Ready", `pod/${pod}`, "--timeout=150s");
      const follow = spawnKubectl(target, ["logs", "-f", pod, "--tail=1"]);
      const text = await readUntil(follow, /tick \d+\n(.|\n)*tick \d+\n(.|\n)*tick \d+\n/);
      const ticks = [...text.matchAll(/tick (\d+)/g)].map((m) => Number(m[1]));
      assert.ok(ticks.length >= 3 && ticks[2] > ticks[0], `${pod}: ${text}`);
      assert.match(await portForwardPage(target, pod, ports[i]), /Directory listing/);
      // The ticker in the background ends with the container (the process runtime's group).
      await k.ok("delete", "pod", pod, "--timeout=150s");
    }
  });
}

const PYTHON_POD_SCRIPT = `
import sys, time
from kubernetes import client, config
from kubernetes.stream import stream
config.load_kube_config(config_file=sys.argv[1])
api = client.CoreV1Api()
pod = client.V1Pod(
    metadata=client.V1ObjectMeta(name="py-pod"),
    spec=client.V1PodSpec(termination_grace_period_seconds=1, containers=[client.V1Container(
        name="main", image="x",
        command=["sh", "-c", "echo hello from python pod; exec sleep 600"])]))
api.create_namespaced_pod("default", pod)
deadline = time.time() + 150
while True:
    p = api.read_namespaced_pod("py-pod", "default")
    if p.status.phase == "Running":
        break
    if time.time() > deadline:
        sys.exit("py-pod not Running: %s" % p.status.phase)
    time.sleep(0.5)
print("node=" + p.spec.node_name)
resp = stream(api.connect_get_namespaced_pod_exec, "py-pod", "default",
              command=["sh", "-c", "echo exec-out; exit 3"], stderr=True, stdin=False,
              stdout=True, tty=False, _preload_content=False)
resp.run_forever(timeout=60)
print("stdout=" + resp.read_stdout().strip())
print("code=%d" % resp.returncode)
deadline = time.time() + 60
while True:
    log = api.read_namespaced_pod_log("py-pod", "default")
    if log or time.time() > deadline:
        break
    time.sleep(0.5)
print("log=" + log.strip())
api.delete_namespaced_pod("py-pod", "default")
`;

async function pythonStep(t: Deno.TestContext, kubeconfig: string): Promise<void> {
  await t.step("the Python client's pod tests: create, Running, exec code, logs", async () => {
    const out = await new Deno.Command("/usr/bin/python3", {
      args: ["-c", PYTHON_POD_SCRIPT, kubeconfig],
      stdout: "piped",
      stderr: "piped",
    }).output().catch(() => undefined);
    const err = out ? new TextDecoder().decode(out.stderr) : "no /usr/bin/python3";
    if (!out || /No module named 'kubernetes'/.test(err)) {
      console.warn("python3-kubernetes is not installed: skipping the Python client's pod tests");
      return;
    }
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, err + text);
    assert.match(text, new RegExp(`^node=(${NODE_A}|${NODE_B})$`, "m"));
    assert.match(text, /^stdout=exec-out$/m);
    assert.match(text, /^code=3$/m);
    assert.match(text, /^log=hello from python pod$/m);
  });
}

async function cronJobFired(t: Deno.TestContext, k: Kubectl): Promise<void> {
  await t.step("the CronJob fired on schedule and its job completed", async () => {
    const job = await eventually("a job of tick", async () => {
      const jobs = await k.json("get", "jobs");
      return jobs.items.find((j: Json) =>
        j.metadata.ownerReferences?.some((o: Json) => o.kind === "CronJob" && o.name === "tick")
      );
    }, { ...SLOW, timeoutMs: 150_000 });
    assert.match(job.metadata.name, /^tick-\d+$/);
    await k.ok("wait", "--for=condition=complete", `job/${job.metadata.name}`, "--timeout=150s");
    const cj = await k.json("get", "cronjob", "tick");
    assert.ok(cj.status.lastScheduleTime, JSON.stringify(cj.status));
  });
}

const TOLERATIONS = JSON.stringify({
  spec: {
    template: {
      spec: {
        tolerations: ["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"].map(
          (key) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 2 }),
        ),
      },
    },
  },
});

/** Kills the processes left running from `dir` (the containers of an agent killed with SIGKILL). */
async function killOrphans(dir: string): Promise<void> {
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const cwd = await Deno.readLink(`/proc/${e.name}/cwd`).catch(() => "");
    if (!cwd.startsWith(`${dir}/`)) continue;
    try {
      Deno.kill(Number(e.name), "SIGKILL");
    } catch { /* gone */ }
  }
}

async function nodeLossStep(t: Deno.TestContext, k: Kubectl, agents: Map<string, AgentProcess>) {
  await t.step("killing a node agent moves its pods once their toleration expires", async () => {
    await k.ok("patch", "deployment", "web", "--type=strategic", "-p", TOLERATIONS);
    await rolledOut(k);
    const pods = await eventually("3 ready pods tolerating the taints for 2 s", async () => {
      const pods = await livePods(k, "app=web");
      return pods.length === 3 && pods.every(isReady) &&
          pods.every((p) => p.spec.tolerations?.some((x: Json) => x.tolerationSeconds === 2))
        ? pods
        : undefined;
    }, SLOW);
    // Node B unless the rollout placed every pod on node A.
    const lost = pods.some((p) => p.spec.nodeName === NODE_B) ? NODE_B : NODE_A;
    const kept = lost === NODE_B ? NODE_A : NODE_B;
    const moved = pods.filter((p) => p.spec.nodeName === lost).map((p) => p.metadata.name);
    await agents.get(lost)!.stop("SIGKILL");
    await eventually(`node ${lost} unreachable`, async () => {
      const node = await k.json("get", "node", lost);
      return node.spec.taints?.some((x: Json) =>
        x.key === "node.kubernetes.io/unreachable" && x.effect === "NoExecute"
      );
    }, SLOW);
    await eventually(`3 ready pods, all on node ${kept}`, async () => {
      const live = await livePods(k, "app=web");
      return live.length === 3 && live.every((p) => p.spec.nodeName === kept && isReady(p));
    }, SLOW);
    const all = await k.json("get", "pods", "-l", "app=web");
    const left = all.items.filter((p: Json) => moved.includes(p.metadata.name));
    assert.ok(
      left.every((p: Json) => p.metadata.deletionTimestamp),
      "the pods of the lost node were deleted (gone or terminating)",
    );
    assert.match(await k.ok("get", "deployment", "web"), /^web\s+3\/3\s+3\s+3\s+/m);
  });
}

Deno.test({
  name: "the cluster (API server and two node agents) passes the acceptance with kubectl",
  ignore: skipWithoutKubectl("the cluster acceptance test"),
  async fn(t) {
    assert.ok(KUBECTL);
    const dir = await Deno.makeTempDir({ prefix: "cluster-acceptance-e2e-" });
    let ts: TestServer | undefined;
    const agents = new Map<string, AgentProcess>();
    try {
      // The agents request serving certificates signed by the cluster CA, approved by the
      // server, which verifies them when it proxies logs and exec (its default).
      ts = await startTestServer(
        ["--node-monitor-grace-period=6s", "--auto-approve-node-serving"],
        {
          dir: `${dir}/api`,
          keepDir: true,
        },
      );
      for (const node of [NODE_A, NODE_B]) {
        const kubeconfig = await writeNodeKubeconfig(ts.server, node, `${dir}/${node}.kubeconfig`);
        agents.set(
          node,
          await startAgentProcess({
            kubeconfig,
            rootDir: `${dir}/${node}`,
            nodeName: node,
            extraConfig: "serverTLSBootstrap: true\n",
          }),
        );
      }
      const target = { kubeconfig: ts.server.kubeconfigPath, home: dir };
      const k = kubectl(target);
      await eventually("both nodes Ready", async () => {
        const nodes = await k.json("get", "nodes");
        return nodes.items.length === 2 &&
          nodes.items.every((n: Json) => isReady(n) && !n.spec.taints?.length);
      }, SLOW);
      await k.apply(CRONJOB);
      await deploymentSteps(t, k);
      await workloadSteps(t, k);
      await podSteps(t, k);
      await streamingStep(t, k, target);
      await pythonStep(t, target.kubeconfig);
      await cronJobFired(t, k);
      await nodeLossStep(t, k, agents);
    } finally {
      for (const a of agents.values()) await a.stop();
      await killOrphans(dir);
      await ts?.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
