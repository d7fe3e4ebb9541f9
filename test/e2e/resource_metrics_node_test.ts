import assert from "node:assert/strict";
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { startTestServer } from "../support/test_server.ts";
import { AGENT_POLL, startAgentProcess } from "../nodeagent/_agent_process.ts";
import { writeNodeKubeconfig } from "../nodeagent/_node_kubeconfig.ts";
import { eventually } from "../support/eventually.ts";
import { decodeObject } from "../../shared/codec/protobuf/mod.ts";
import { findKubectl120 } from "../support/kubectl_120.ts";
import { KUBECTL, kubectlFor, kubectlOk, runKubectl } from "../support/kubectl.ts";

// deno-lint-ignore no-explicit-any
type J = Record<string, any>;

const PODS = { version: "v1", resource: "pods", namespace: "default" };
const SLOW = { timeoutMs: 120_000, intervalMs: 500, retryErrors: true };

/** A container that burns about a fifth of a core: 20 ms of work, 80 ms of sleep. */
const BURN = [
  "python3",
  "-c",
  "import time\nwhile True:\n  t = time.time()\n  while time.time() - t < 0.02: pass\n  time.sleep(0.08)\n",
];

Deno.test({
  name:
    "resource metrics: the agent's /metrics/resource and /stats/summary, metrics.k8s.io NodeMetrics and PodMetrics, kubectl top",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "resource-metrics-e2e-" });
    const userToken = crypto.randomUUID().replaceAll("-", "");
    await Deno.writeTextFile(`${dir}/tokens.csv`, `${userToken},watcher,uid-watcher\n`, {
      mode: 0o600,
    });
    const ts = await startTestServer([
      "--auto-approve-node-serving",
      "--metrics-resolution=2s",
      `--token-auth-file=${dir}/tokens.csv`,
    ], { dir: `${dir}/api`, keepDir: true });
    // The agent's serving certificate comes from the cluster CA (serverTLSBootstrap), which
    // the API server verifies it against.
    const agent = await startAgentProcess({
      kubeconfig: await writeNodeKubeconfig(ts.server, "metrics-node", `${dir}/node.kubeconfig`),
      rootDir: `${dir}/root`,
      nodeName: "metrics-node",
      extraConfig: "serverTLSBootstrap: true\n" +
        "authorization:\n  webhook:\n    cacheUnauthorizedTTL: 0s\n",
    });
    try {
      await ts.client.create(PODS, {
        metadata: { name: "burner", namespace: "default", labels: { app: "burn" } },
        spec: {
          nodeName: "metrics-node",
          containers: [{ name: "burn", image: "x", command: BURN }],
        },
      });
      await eventually("the pod running", async () => {
        const pod = await ts.client.get<KubeObject>({ ...PODS, name: "burner" });
        return (pod.status as J)?.phase === "Running" ? pod : undefined;
      }, AGENT_POLL);

      await t.step("the agent serves /metrics/resource, /stats/summary and /metrics", async () => {
        const client = Deno.createHttpClient({ caCerts: [ts.server.caPem] });
        const get = async (path: string) => {
          const res = await fetch(`https://127.0.0.1:${agent.port}${path}`, {
            headers: { authorization: `Bearer ${ts.server.adminToken}` },
            client,
          });
          return { status: res.status, body: await res.text() };
        };
        try {
          // The serving certificate from the cluster CA arrives once the CSR is signed.
          const resource = await eventually("the agent's resource metrics", async () => {
            const r = await get("/metrics/resource");
            return r.status === 200 && r.body.includes('container="burn"') ? r.body : undefined;
          }, SLOW);
          assert.match(resource, /^node_cpu_usage_seconds_total \S+ \d{13}$/m);
          assert.match(resource, /^node_memory_working_set_bytes \S+ \d{13}$/m);
          assert.match(
            resource,
            /^container_cpu_usage_seconds_total\{container="burn",namespace="default",pod="burner"\} \S+ \d{13}$/m,
          );
          assert.match(
            resource,
            /^pod_memory_working_set_bytes\{namespace="default",pod="burner"\} /m,
          );
          assert.match(resource, /^container_start_time_seconds\{container="burn",/m);
          assert.match(resource, /^resource_scrape_error 0$/m);
          const summary = JSON.parse((await get("/stats/summary")).body) as J;
          assert.equal(summary.node.nodeName, "metrics-node");
          assert.ok(summary.node.memory.workingSetBytes > 0);
          const pod = summary.pods.find((p: J) => p.podRef.name === "burner");
          assert.equal(pod.podRef.namespace, "default");
          assert.equal(pod.containers[0].name, "burn");
          assert.ok(pod.containers[0].cpu.usageCoreNanoSeconds > 0);
          assert.ok(pod.memory.workingSetBytes > 0);
          const own = (await get("/metrics")).body;
          assert.match(own, /^process_resident_memory_bytes \S+$/m);
          assert.match(own, /^kubelet_running_pods 1$/m);
        } finally {
          client.close();
        }
      });

      await t.step("metrics.k8s.io is discovered and its APIService is Available", async () => {
        const groups = await (await ts.fetch("/apis")).json() as J;
        const g = groups.groups.find((g: J) => g.name === "metrics.k8s.io");
        assert.deepEqual(g?.versions, [{
          groupVersion: "metrics.k8s.io/v1beta1",
          version: "v1beta1",
        }]);
        const svc = await ts.client.get<KubeObject>({
          group: "apiregistration.k8s.io",
          version: "v1",
          resource: "apiservices",
          name: "v1beta1.metrics.k8s.io",
        });
        const available = ((svc.status as J).conditions as J[]).find((c) => c.type === "Available");
        assert.equal(available?.status, "True");
      });

      await t.step("NodeMetrics and PodMetrics have metrics-server's shape", async () => {
        const node = await eventually("the node's metrics", async () => {
          const res = await ts.fetch("/apis/metrics.k8s.io/v1beta1/nodes/metrics-node");
          return res.status === 200 ? await res.json() as J : (await res.body?.cancel(), undefined);
        }, SLOW);
        // metrics-server's fields, in its order.
        assert.deepEqual(Object.keys(node), [
          "kind",
          "apiVersion",
          "metadata",
          "timestamp",
          "window",
          "usage",
        ]);
        assert.equal(node.kind, "NodeMetrics");
        assert.equal(node.apiVersion, "metrics.k8s.io/v1beta1");
        assert.equal(node.metadata.labels["kubernetes.io/hostname"], "metrics-node");
        assert.match(node.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        assert.match(node.window, /^\d+(\.\d+)?s$/);
        assert.deepEqual(Object.keys(node.usage).sort(), ["cpu", "memory"]);
        const pod = await eventually("the pod's metrics", async () => {
          const res = await ts.fetch("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/burner");
          return res.status === 200 ? await res.json() as J : (await res.body?.cancel(), undefined);
        }, SLOW);
        assert.deepEqual(Object.keys(pod), [
          "kind",
          "apiVersion",
          "metadata",
          "timestamp",
          "window",
          "containers",
        ]);
        assert.equal(pod.kind, "PodMetrics");
        assert.equal(pod.metadata.namespace, "default");
        assert.deepEqual(pod.metadata.labels, { app: "burn" });
        assert.equal(pod.containers.length, 1);
        assert.equal(pod.containers[0].name, "burn");
        assert.deepEqual(Object.keys(pod.containers[0].usage).sort(), ["cpu", "memory"]);
        const list = await (await ts.fetch(
          "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=app%3Dburn",
        )).json() as J;
        assert.equal(list.kind, "PodMetricsList");
        assert.deepEqual(list.items.map((i: J) => i.metadata.name), ["burner"]);
        const none = await (await ts.fetch(
          "/apis/metrics.k8s.io/v1beta1/namespaces/kube-system/pods",
        )).json() as J;
        assert.deepEqual(none.items, []);
        const missing = await ts.fetch("/apis/metrics.k8s.io/v1beta1/nodes/no-such-node");
        assert.equal(missing.status, 404);
        await missing.body?.cancel();
      });

      await t.step("Table, Protobuf and OpenAPI of the metrics kinds", async () => {
        const table = await (await ts.fetch("/apis/metrics.k8s.io/v1beta1/nodes", {
          headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
        })).json() as J;
        assert.deepEqual(table.columnDefinitions.map((c: J) => c.name), [
          "Name",
          "cpu",
          "memory",
          "Window",
        ]);
        assert.equal(table.rows[0].cells[0], "metrics-node");
        const pb = await ts.fetch("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/burner", {
          headers: { accept: "application/vnd.kubernetes.protobuf" },
        });
        assert.equal(pb.headers.get("content-type"), "application/vnd.kubernetes.protobuf");
        const bytes = new Uint8Array(await pb.arrayBuffer());
        const decoded = decodeObject(bytes) as J;
        assert.equal(decoded.kind, "PodMetrics");
        assert.match(decoded.window, /^\d+(\.\d+)?s$/);
        assert.equal(decoded.containers[0].name, "burn");
        const doc = await (await ts.fetch("/openapi/v3/apis/metrics.k8s.io/v1beta1")).json() as J;
        const schema =
          doc.components.schemas["io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics"];
        assert.ok(schema.properties.usage && schema.properties.window, JSON.stringify(schema));
      });

      await t.step(
        "RBAC: nodes/metrics at the agent, the metrics reader role at the server",
        async () => {
          const client = Deno.createHttpClient({ caCerts: [ts.server.caPem] });
          const agentGet = async (path: string) => {
            const res = await fetch(`https://127.0.0.1:${agent.port}${path}`, {
              headers: { authorization: `Bearer ${userToken}` },
              client,
            });
            return { status: res.status, body: await res.text() };
          };
          const apiGet = async () => {
            const res = await ts.fetch("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", {
              headers: { authorization: `Bearer ${userToken}` },
            });
            await res.body?.cancel();
            return res.status;
          };
          const RBAC = { group: "rbac.authorization.k8s.io", version: "v1" };
          try {
            const denied = await agentGet("/metrics/resource");
            assert.equal(denied.status, 403);
            assert.match(denied.body, /cannot get resource \\"nodes\/metrics\\"/);
            assert.equal((await agentGet("/stats/summary")).status, 403);
            assert.equal(await apiGet(), 403);
            await ts.client.create({ ...RBAC, resource: "clusterroles" }, {
              metadata: { name: "node-metrics" },
              rules: [{ apiGroups: [""], resources: ["nodes/metrics"], verbs: ["get"] }],
            });
            await ts.client.create({ ...RBAC, resource: "clusterrolebindings" }, {
              metadata: { name: "watcher-node-metrics" },
              roleRef: { apiGroup: RBAC.group, kind: "ClusterRole", name: "node-metrics" },
              subjects: [{ kind: "User", apiGroup: RBAC.group, name: "watcher" }],
            });
            await ts.client.create({ ...RBAC, resource: "rolebindings", namespace: "default" }, {
              metadata: { name: "watcher-view", namespace: "default" },
              roleRef: { apiGroup: RBAC.group, kind: "ClusterRole", name: "view" },
              subjects: [{ kind: "User", apiGroup: RBAC.group, name: "watcher" }],
            });
            await eventually(
              "the agent allowing nodes/metrics",
              async () => (await agentGet("/metrics/resource")).status === 200,
              SLOW,
            );
            assert.equal((await agentGet("/stats/summary")).status, 403, "nodes/stats is another");
            await eventually("view reading pod metrics", async () => await apiGet() === 200, SLOW);
          } finally {
            client.close();
          }
        },
      );

      await t.step({
        name: "kubectl top nodes and kubectl top pods show plausible CPU and memory",
        ignore: KUBECTL === undefined,
        async fn() {
          const k = kubectlFor({ server: ts.server, dir });
          const nodes = kubectlOk(await runKubectl(k, ["top", "nodes"]));
          const row = nodes.split("\n").find((l) => l.startsWith("metrics-node"));
          assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU%?\(?%?\)?\s+MEMORY\(bytes\)/);
          const [, cpu, , mem] = row!.trim().split(/\s+/);
          assert.match(cpu, /^\d+m?$/);
          assert.match(mem, /^\d+(Ki|Mi|Gi)$/);
          const pods = await eventually("a plausible pod CPU", async () => {
            const out = kubectlOk(await runKubectl(k, ["top", "pods", "-l", "app=burn"]));
            const line = out.split("\n").find((l) => l.startsWith("burner"));
            const millis = Number(/^burner\s+(\d+)m/.exec(line ?? "")?.[1] ?? 0);
            // About 200m is burnt; on a busy machine less, never nothing nor several cores.
            return millis >= 20 && millis <= 2000 ? line : undefined;
          }, SLOW);
          assert.match(pods!, /^burner\s+\d+m\s+\d+(Ki|Mi)\s*$/);
          const containers = kubectlOk(await runKubectl(k, ["top", "pods", "--containers"]));
          assert.match(containers, /burner\s+burn\s+\d+m\s+\d+(Ki|Mi)/);
          const table = kubectlOk(await runKubectl(k, ["get", "nodes.metrics.k8s.io"]));
          assert.match(table, /^NAME\s+CPU\s+MEMORY\s+WINDOW/);
        },
      });

      await t.step("kubectl 1.20's top reads the same API", async () => {
        const bin = await findKubectl120("kubectl 1.20 top");
        if (!bin) return;
        const k = { ...kubectlFor({ server: ts.server, dir }), bin };
        assert.match(kubectlOk(await runKubectl(k, ["top", "nodes"])), /^metrics-node\s+\d+m/m);
        assert.match(
          kubectlOk(await runKubectl(k, ["top", "pods", "-n", "default"])),
          /^burner\s+\d+m\s+\d+(Ki|Mi)/m,
        );
      });
    } finally {
      await agent.stop();
      await ts.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
