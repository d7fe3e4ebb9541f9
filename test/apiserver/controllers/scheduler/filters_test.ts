/** The filter plugins, with cases from kube-scheduler's plugin tests. */
import assert from "node:assert/strict";
import type { FilterPlugin } from "../../../../apiserver/controllers/scheduler/filter.ts";
import {
  nodeName,
  nodePorts,
  nodeUnschedulable,
  taintToleration,
} from "../../../../apiserver/controllers/scheduler/node_filters.ts";
import { nodeAffinity } from "../../../../apiserver/controllers/scheduler/node_affinity.ts";
import { nodeResourcesFit } from "../../../../apiserver/controllers/scheduler/resources_fit.ts";
import { podTopologySpread } from "../../../../apiserver/controllers/scheduler/topology_spread.ts";
import { interPodAffinity } from "../../../../apiserver/controllers/scheduler/inter_pod_affinity.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { cluster, info, node, pod } from "./_fixtures.ts";

/** The filter's answer for `p` on every node: the reasons, "" when it fits. */
function run(
  plugin: FilterPlugin,
  p: KubeObject,
  nodes: KubeObject[],
  bound: KubeObject[] = [],
): Record<string, string> {
  const c = cluster(nodes, bound);
  const check = plugin.prepare(info(p), c.nodes());
  const out: Record<string, string> = {};
  for (const n of c.nodes()) out[n.name] = check(n)?.reasons.join("; ") ?? "";
  return out;
}

Deno.test("nodeUnschedulable rejects cordoned nodes unless the pod tolerates them", () => {
  const cordoned = node("n", { spec: { unschedulable: true } });
  assert.deepEqual(run(nodeUnschedulable, pod("p"), [cordoned]), {
    n: "node(s) were unschedulable",
  });
  const tolerant = pod("p", {
    tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists" }],
  });
  assert.deepEqual(run(nodeUnschedulable, tolerant, [cordoned]), { n: "" });
});

Deno.test("nodeName fits only the named node", () => {
  const p = pod("p", { nodeName: "b" });
  assert.deepEqual(run(nodeName, p, [node("a"), node("b")]), {
    a: "node(s) didn't match the requested node name",
    b: "",
  });
});

Deno.test("taintToleration names the first untolerated NoSchedule or NoExecute taint", () => {
  const tainted = node("n", {
    spec: { taints: [{ key: "dedicated", value: "user1", effect: "NoSchedule" }] },
  });
  const prefer = node("m", {
    spec: { taints: [{ key: "foo", value: "bar", effect: "PreferNoSchedule" }] },
  });
  assert.deepEqual(run(taintToleration, pod("p"), [tainted, prefer]), {
    n: "node(s) had untolerated taint {dedicated: user1}",
    m: "",
  });
  const equal = pod("p", {
    tolerations: [{ key: "dedicated", operator: "Equal", value: "user1", effect: "NoSchedule" }],
  });
  assert.deepEqual(run(taintToleration, equal, [tainted]), { n: "" });
  const wrongValue = pod("p", {
    tolerations: [{ key: "dedicated", operator: "Equal", value: "user2", effect: "NoSchedule" }],
  });
  assert.deepEqual(run(taintToleration, wrongValue, [tainted]), {
    n: "node(s) had untolerated taint {dedicated: user1}",
  });
  const everything = pod("p", { tolerations: [{ operator: "Exists" }] });
  assert.deepEqual(run(taintToleration, everything, [tainted]), { n: "" });
  const notReady = node("r", {
    spec: { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }] },
  });
  assert.deepEqual(run(taintToleration, pod("p"), [notReady]), {
    r: "node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
  });
});

Deno.test("nodeAffinity applies nodeSelector and required terms (OR of ANDs)", () => {
  const nodes = [
    node("a", { labels: { zone: "foo", gpus: "4" } }),
    node("b", { labels: { zone: "bar", gpus: "1" } }),
  ];
  const reason = "node(s) didn't match Pod's node affinity/selector";
  assert.deepEqual(run(nodeAffinity, pod("p", { nodeSelector: { zone: "foo" } }), nodes), {
    a: "",
    b: reason,
  });
  const terms = (nodeSelectorTerms: unknown[]) =>
    pod("p", {
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } },
      },
    });
  const gt = terms([{ matchExpressions: [{ key: "gpus", operator: "Gt", values: ["2"] }] }]);
  assert.deepEqual(run(nodeAffinity, gt, nodes), { a: "", b: reason });
  const either = terms([
    { matchExpressions: [{ key: "zone", operator: "In", values: ["nope"] }] },
    { matchFields: [{ key: "metadata.name", operator: "In", values: ["b"] }] },
  ]);
  assert.deepEqual(run(nodeAffinity, either, nodes), { a: reason, b: "" });
  assert.deepEqual(run(nodeAffinity, terms([{}]), nodes), { a: reason, b: reason });
  const notIn = terms([{
    matchExpressions: [{ key: "zone", operator: "NotIn", values: ["foo"] }],
  }]);
  assert.deepEqual(run(nodeAffinity, notIn, nodes), { a: reason, b: "" });
});

Deno.test("nodePorts rejects a host port in use for the same protocol and overlapping IPs", () => {
  const withPort = (name: string, port: Record<string, unknown>, nodeName?: string) =>
    pod(name, {
      nodeName,
      containers: [{ name: "c", image: "x", ports: [{ containerPort: 80, ...port }] }],
    });
  const used = withPort("used", { hostPort: 8080, hostIP: "127.0.0.1" }, "n");
  const reason = "node(s) didn't have free ports for the requested pod ports";
  const cases: [Record<string, unknown>, string][] = [
    [{ hostPort: 8080, hostIP: "127.0.0.1" }, reason],
    [{ hostPort: 8080 }, reason],
    [{ hostPort: 8080, hostIP: "127.0.0.2" }, ""],
    [{ hostPort: 8080, protocol: "UDP" }, ""],
    [{ hostPort: 8081 }, ""],
  ];
  for (const [port, want] of cases) {
    assert.deepEqual(run(nodePorts, withPort("p", port), [node("n")], [used]), { n: want });
  }
});

Deno.test("nodeResourcesFit counts init containers, overhead, bound pods and the pod limit", () => {
  const bound = pod("b", { nodeName: "n" }, { cpu: "2" });
  assert.deepEqual(run(nodeResourcesFit, pod("p", {}, { cpu: "2" }), [node("n")], [bound]), {
    n: "",
  });
  assert.deepEqual(run(nodeResourcesFit, pod("p", {}, { cpu: "3" }), [node("n")], [bound]), {
    n: "Insufficient cpu",
  });
  const init = pod("p", {
    initContainers: [{ name: "i", image: "x", resources: { requests: { cpu: "3" } } }],
  }, { cpu: "1" });
  assert.deepEqual(run(nodeResourcesFit, init, [node("n")], [bound]), { n: "Insufficient cpu" });
  const overhead = pod("p", { overhead: { cpu: "1500m" } }, { cpu: "1" });
  assert.deepEqual(run(nodeResourcesFit, overhead, [node("n")], [bound]), {
    n: "Insufficient cpu",
  });
  assert.deepEqual(run(nodeResourcesFit, pod("p"), [node("n", { pods: "1" })], [bound]), {
    n: "Too many pods",
  });
});

Deno.test("podTopologySpread keeps the skew within maxSkew and needs the topology key", () => {
  const spread = pod("p", {
    topologySpreadConstraints: [{
      maxSkew: 1,
      topologyKey: "zone",
      whenUnsatisfiable: "DoNotSchedule",
      labelSelector: { matchLabels: { foo: "" } },
    }],
  }, { labels: { foo: "" } });
  const nodes = [
    node("a", { labels: { zone: "zone1" } }),
    node("b", { labels: { zone: "zone2" } }),
    node("c"),
  ];
  const bound = [pod("x", { nodeName: "a" }, { labels: { foo: "" } })];
  assert.deepEqual(run(podTopologySpread, spread, nodes, bound), {
    a: "node(s) didn't match pod topology spread constraints",
    b: "",
    c: "node(s) didn't match pod topology spread constraints (missing required label)",
  });
  assert.deepEqual(run(podTopologySpread, spread, nodes.slice(0, 2)), { a: "", b: "" });
});

Deno.test("interPodAffinity checks affinity, anti-affinity and existing pods' anti-affinity", () => {
  const nodes = [node("a", { labels: { zone: "z1" } }), node("b", { labels: { zone: "z2" } })];
  const term = (app: string) => ({
    labelSelector: { matchLabels: { app } },
    topologyKey: "zone",
  });
  const affinity = (kind: string, app: string, labels: Record<string, string> = {}) =>
    pod("p", {
      affinity: { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: [term(app)] } },
    }, { labels });
  const db = pod("db", { nodeName: "a" }, { labels: { app: "db" } });
  assert.deepEqual(run(interPodAffinity, affinity("podAffinity", "db"), nodes, [db]), {
    a: "",
    b: "node(s) didn't match pod affinity rules",
  });
  // The first pod of a group whose affinity selects itself may go anywhere.
  assert.deepEqual(run(interPodAffinity, affinity("podAffinity", "web", { app: "web" }), nodes), {
    a: "",
    b: "",
  });
  assert.deepEqual(run(interPodAffinity, affinity("podAntiAffinity", "db"), nodes, [db]), {
    a: "node(s) didn't match pod anti-affinity rules",
    b: "",
  });
  const guard = pod("guard", {
    nodeName: "b",
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term("x")] } },
  });
  assert.deepEqual(run(interPodAffinity, pod("p", {}, { labels: { app: "x" } }), nodes, [guard]), {
    a: "",
    b: "node(s) didn't satisfy existing pods anti-affinity rules",
  });
});
