import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { eventually } from "../support/eventually.ts";
import { KUBECTL, type KubectlTarget, runKubectl, spawnKubectl } from "../support/kubectl.ts";
import { findKubectl120 } from "../support/kubectl_120.ts";

const PODS = { version: "v1", resource: "pods", namespace: "default" };
const WEB_PORT = 20000 + Math.floor(Math.random() * 20000);
const TALKER =
  "i=0; echo to-stderr >&2; sleep 0.5; while true; do echo line $i; i=$((i+1)); sleep 0.3; done";

async function running(ts: { client: { get<T>(r: object): Promise<T> } }, name: string) {
  await eventually(`pod ${name} running`, async () => {
    const pod = await ts.client.get<KubeObject>({ ...PODS, name });
    const st = pod.status as { phase?: string; containerStatuses?: { state: object }[] };
    const all = st.containerStatuses ?? [];
    return st.phase === "Running" && all.length && all.every((c) => "running" in c.state)
      ? pod
      : undefined;
  }, AGENT_POLL);
}

/** Reads a child's stdout until `pattern` matches (or 60 s), then kills it. */
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

Deno.test({
  name:
    "pods/log, exec and attach reach a pod on a node agent: kubectl logs (-f, --tail, --timestamps), exec exit codes, exec -it through a terminal, attach, the Python client",
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "pod-streaming-" });
    await Deno.writeTextFile(`${dir}/tokens.csv`, "viewer-token,viewer,uid-viewer\n", {
      mode: 0o600,
    });
    // The agent's serving certificate is self-signed: not verified (--kubelet-insecure-tls).
    // The API server's kubelet client certificate is signed by the cluster CA, which the agent
    // trusts for client certificates by default.
    const ts = await startTestServer([
      `--token-auth-file=${dir}/tokens.csv`,
      "--kubelet-insecure-tls",
    ], {
      dir: `${dir}/api`,
      keepDir: true,
    });
    const agent = await startAgentProcess({
      kubeconfig: await writeNodeKubeconfig(ts.server, "streamer", `${dir}/node.kubeconfig`),
      rootDir: `${dir}/root`,
      nodeName: "streamer",
    });
    const k: KubectlTarget = { kubeconfig: ts.server.kubeconfigPath, home: dir };
    try {
      await ts.client.create(PODS, {
        metadata: { name: "talker", namespace: "default" },
        spec: {
          nodeName: "streamer",
          containers: [{
            name: "main",
            image: "busybox",
            command: ["sh", "-c", TALKER],
            env: [{ name: "GREETING", value: "hello-from-env" }],
          }],
        },
      });
      await ts.client.create(PODS, {
        metadata: { name: "two", namespace: "default" },
        spec: {
          nodeName: "streamer",
          containers: [
            { name: "a", image: "busybox", command: ["sleep", "3600"] },
            { name: "b", image: "busybox", command: ["sleep", "3600"] },
          ],
        },
      });
      await ts.client.create(PODS, {
        metadata: { name: "web", namespace: "default" },
        spec: {
          nodeName: "streamer",
          containers: [{
            name: "web",
            image: "python",
            command: [
              "/usr/bin/python3",
              "-m",
              "http.server",
              String(WEB_PORT),
              "--bind",
              "127.0.0.1",
            ],
          }],
        },
      });
      await ts.client.create(PODS, {
        metadata: { name: "crasher", namespace: "default" },
        spec: {
          nodeName: "streamer",
          containers: [{
            name: "main",
            image: "busybox",
            command: ["sh", "-c", "echo started-at-$(date +%s%N); sleep 1; exit 1"],
          }],
        },
      });
      await ts.client.create(PODS, {
        metadata: { name: "reader", namespace: "default" },
        spec: {
          nodeName: "streamer",
          restartPolicy: "Never",
          containers: [{
            name: "main",
            image: "busybox",
            stdin: true,
            stdinOnce: true,
            command: ["sh", "-c", "while read l; do echo got-$l; done; echo bye"],
          }],
        },
      });
      await running(ts, "talker");
      await running(ts, "two");
      await running(ts, "reader");
      await running(ts, "web");

      await t.step("GET pods/log: the output, tailLines, timestamps, limitBytes", async () => {
        const get = async (q: string) => {
          const res = await ts.fetch(`/api/v1/namespaces/default/pods/talker/log${q}`);
          return { status: res.status, text: await res.text() };
        };
        const all = await eventually("line 2 logged", async () => {
          const r = await get("");
          return r.text.includes("line 2\n") ? r : undefined;
        }, AGENT_POLL);
        assert.equal(all.status, 200);
        assert.ok(all.text.startsWith("to-stderr\nline 0\nline 1\n"), all.text);
        const tail = await get("?tailLines=1");
        assert.match(tail.text, /^line \d+\n$/);
        const stamped = await get("?tailLines=2&timestamps=true");
        assert.match(stamped.text, /^(\d{4}-\d\d-\d\dT[0-9:.]+Z line \d+\n){2}$/);
        const limited = await get("?limitBytes=4");
        assert.equal(limited.text, "to-s");
        const bad = await get("?tailLines=-1");
        assert.equal(bad.status, 400, bad.text);
      });

      await t.step("two containers and none named: kube's message", async () => {
        const res = await ts.fetch(`/api/v1/namespaces/default/pods/two/log`);
        assert.equal(res.status, 400);
        assert.equal(
          (await res.json()).message,
          "a container name must be specified for pod two, choose one of: [a b]",
        );
      });

      await t.step("a viewer without pods/exec or nodes/proxy is refused by both", async () => {
        await ts.client.create({
          group: "rbac.authorization.k8s.io",
          version: "v1",
          resource: "clusterrolebindings",
        }, {
          metadata: { name: "viewer-view" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
          subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "viewer" }],
        });
        const viewer = { authorization: "Bearer viewer-token" };
        const exec = await ts.fetch(
          "/api/v1/namespaces/default/pods/talker/exec?command=ls&stdout=true",
          { method: "POST", headers: viewer },
        );
        assert.equal(exec.status, 403);
        assert.match((await exec.json()).message, /cannot create resource "pods\/exec"/);
        const agentCa = await Deno.readTextFile(`${dir}/root/pki/nodeagent.crt`);
        const client = Deno.createHttpClient({ caCerts: [agentCa] });
        try {
          const direct = await fetch(
            `https://localhost:${agent.port}/containerLogs/default/talker/main`,
            { headers: viewer, client },
          );
          assert.equal(direct.status, 403);
          assert.match(await direct.text(), /nodes\/proxy/);
        } finally {
          client.close();
        }
      });

      await t.step(
        "previous: the last terminated instance's log; none before a restart",
        async () => {
          const get = (q: string) => ts.fetch(`/api/v1/namespaces/default/pods/${q}`);
          const none = await get("talker/log?previous=true");
          assert.equal(none.status, 400);
          assert.match(
            (await none.json()).message,
            /previous terminated container "main" in pod "talker" not found/,
          );
          await eventually("crasher restarted", async () => {
            const pod = await ts.client.get<KubeObject>({ ...PODS, name: "crasher" });
            const st = (pod.status as { containerStatuses?: { restartCount: number }[] })
              .containerStatuses?.[0];
            return (st?.restartCount ?? 0) >= 1 ? st : undefined;
          }, AGENT_POLL);
          const previous = await get("crasher/log?previous=true");
          const text = await previous.text();
          assert.equal(previous.status, 200, text);
          assert.match(text, /^started-at-\d+\n$/);
        },
      );

      if (!KUBECTL) {
        console.warn("kubectl is not on PATH: skipping the kubectl steps");
        return;
      }

      await t.step("kubectl logs, --tail, --timestamps, -f", async () => {
        const logs = await runKubectl(k, ["logs", "talker"]);
        assert.equal(logs.code, 0, logs.stderr);
        assert.match(logs.stdout, /^to-stderr\nline 0\n/);
        const tail = await runKubectl(k, ["logs", "talker", "--tail=2"]);
        assert.match(tail.stdout, /^line \d+\nline \d+\n$/);
        const stamped = await runKubectl(k, ["logs", "talker", "--tail=1", "--timestamps"]);
        assert.match(stamped.stdout, /^\d{4}-\d\d-\d\dT[0-9:.]+Z line \d+\n$/);
        const last = Number(/line (\d+)\n$/.exec(logs.stdout)![1]);
        // -f keeps streaming: lines written after the request arrive.
        const follow = spawnKubectl(k, ["logs", "-f", "talker", "--tail=1"]);
        const text = await readUntil(follow, new RegExp(`line ${last + 3}\\n`));
        assert.match(text, new RegExp(`line ${last + 3}\\n`));
        // kubectl picks the first container itself when none is named.
        const two = await runKubectl(k, ["logs", "two"]);
        assert.equal(two.code, 0, two.stderr);
        assert.match(two.stderr, /Defaulted container "a" out of: a, b/);
      });

      await t.step("kubectl exec: output, environment, working directory, exit codes", async () => {
        const r = await runKubectl(k, [
          "exec",
          "talker",
          "--",
          "sh",
          "-c",
          'echo "$GREETING in $PWD"; echo oops >&2',
        ]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(
          r.stdout,
          `hello-from-env in ${dir}/root/pods/${await uid(ts, "talker")}/containers/main/work\n`,
        );
        assert.match(r.stderr, /oops/);
        const failed = await runKubectl(k, ["exec", "talker", "--", "sh", "-c", "exit 3"]);
        assert.equal(failed.code, 3, failed.stderr);
        const input = await runKubectl(
          k,
          ["exec", "-i", "talker", "--", "sh", "-c", "tr a-z A-Z"],
          "shout\n",
        );
        assert.equal(input.stdout, "SHOUT\n", input.stderr);
        const c = await runKubectl(k, ["exec", "two", "-c", "b", "--", "echo", "in-b"]);
        assert.equal(c.stdout, "in-b\n", c.stderr);
      });

      await t.step("kubectl exec -it through a pseudo-terminal", async () => {
        const cmd = `${KUBECTL} exec -it talker -- sh`;
        const child = new Deno.Command("script", {
          args: ["-qec", cmd, "/dev/null"],
          env: { KUBECONFIG: k.kubeconfig, HOME: dir, TERM: "xterm" },
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const w = child.stdin.getWriter();
        await w.write(new TextEncoder().encode("tty && echo answer-$((40+2))\n"));
        await new Promise((r) => setTimeout(r, 3000));
        await w.write(new TextEncoder().encode("exit 5\n"));
        const out = await child.output();
        const text = new TextDecoder().decode(out.stdout);
        assert.match(text, /answer-42/);
        assert.match(text, /\/dev\/pts\//);
        assert.equal(out.code, 5, text + new TextDecoder().decode(out.stderr));
      });

      await t.step("kubectl attach -i writes to the container's standard input", async () => {
        const r = await runKubectl(k, ["attach", "-i", "reader"], "hello\n");
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /got-hello\n/);
        assert.match(r.stdout, /bye\n/);
      });

      await t.step("kubectl attach shows the output as it comes", async () => {
        const child = spawnKubectl(k, ["attach", "talker"]);
        const text = await readUntil(child, /line \d+\n/);
        assert.match(text, /line \d+\n/);
      });

      await t.step("kubectl port-forward reaches an HTTP server in the pod", async () => {
        await portForward(k, WEB_PORT);
      });

      await t.step(
        "kubectl 1.20 (SPDY): exec with exit codes and input, port-forward",
        async () => {
          const bin = await findKubectl120("the kubectl 1.20 steps");
          if (!bin) return;
          const k20 = { ...k, bin };
          const r = await runKubectl(k20, ["exec", "talker", "--", "sh", "-c", "echo old; exit 6"]);
          assert.equal(r.code, 6, r.stderr);
          assert.equal(r.stdout, "old\n");
          const input = await runKubectl(
            k20,
            ["exec", "-i", "talker", "--", "tr", "a-z", "A-Z"],
            "spdy\n",
          );
          assert.equal(input.stdout, "SPDY\n", input.stderr);
          await portForward(k20, WEB_PORT);
        },
      );

      await t.step(
        "the Python client: exec with its exit code, the logs, port-forward",
        async () => {
          const script = `
import sys
from kubernetes import client, config
from kubernetes.stream import stream, portforward
config.load_kube_config(config_file=sys.argv[1])
api = client.CoreV1Api()
resp = stream(api.connect_get_namespaced_pod_exec, "talker", "default",
              command=["sh", "-c", "echo py-out; exit 7"], stderr=True, stdin=False,
              stdout=True, tty=False, _preload_content=False)
resp.run_forever(timeout=60)
print("stdout=" + resp.read_stdout().strip())
print("code=%d" % resp.returncode)
log = api.read_namespaced_pod_log("talker", "default", tail_lines=1)
print("log=" + log.strip())
pf = portforward(api.connect_get_namespaced_pod_portforward, "web", "default", ports=sys.argv[2])
sock = pf.socket(int(sys.argv[2]))
sock.setblocking(True)
sock.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
data = b""
while True:
    chunk = sock.recv(65536)
    if not chunk:
        break
    data += chunk
sock.close()
print("forwarded=" + data.split(b"\\r\\n")[0].decode())
`;
          const out = await new Deno.Command("/usr/bin/python3", {
            args: ["-c", script, k.kubeconfig, String(WEB_PORT)],
            stdout: "piped",
            stderr: "piped",
          }).output();
          const text = new TextDecoder().decode(out.stdout);
          const err = new TextDecoder().decode(out.stderr);
          if (/No module named 'kubernetes'/.test(err)) {
            console.warn("python3-kubernetes is not installed: skipping");
            return;
          }
          assert.equal(out.code, 0, err);
          assert.match(text, /stdout=py-out\n/);
          assert.match(text, /code=7\n/);
          assert.match(text, /log=line \d+\n/);
          assert.match(text, /forwarded=HTTP\/1\.0 200 OK\n/);
        },
      );
    } finally {
      await agent.stop();
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

/** Runs `kubectl port-forward` to the web pod and fetches a page through it. */
async function portForward(k: KubectlTarget, podPort: number): Promise<void> {
  const local = 40000 + Math.floor(Math.random() * 20000);
  const child = spawnKubectl(k, ["port-forward", "pod/web", `${local}:${podPort}`]);
  try {
    const body = await eventually("a page through the forwarded port", async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${local}/`);
        const text = await res.text();
        return res.status === 200 ? text : undefined;
      } catch {
        return undefined;
      }
    }, AGENT_POLL);
    assert.match(body, /Directory listing/);
    // A second connection through the same session.
    const again = await fetch(`http://127.0.0.1:${local}/missing`);
    assert.equal(again.status, 404);
    await again.body?.cancel();
  } finally {
    child.kill("SIGKILL");
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    await child.status;
  }
}

async function uid(ts: { client: { get<T>(r: object): Promise<T> } }, name: string) {
  return (await ts.client.get<KubeObject>({ ...PODS, name })).metadata.uid;
}
