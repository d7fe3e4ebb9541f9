/** The scheduling algorithm's pieces: the fit error message, scoring ties, back-off, preemption. */
import assert from "node:assert/strict";
import {
  defaultFilters,
  findNode,
  fitErrorMessage,
} from "../../../../apiserver/controllers/scheduler/find_node.ts";
import { preempt } from "../../../../apiserver/controllers/scheduler/preemption.ts";
import { pickHighest } from "../../../../apiserver/controllers/scheduler/scoring.ts";
import { SchedulingQueue } from "../../../../apiserver/controllers/scheduler/scheduling_queue.ts";
import { cluster, info, node, pod } from "./_fixtures.ts";

Deno.test("fitErrorMessage() sorts the reason histogram as kube and appends preemption's", () => {
  const c = cluster([
    node("a", { cpu: "1" }),
    node("b", { cpu: "1" }),
    node("t", { spec: { taints: [{ key: "k", value: "v", effect: "NoSchedule" }] } }),
  ]);
  const p = info(pod("p", {}, { cpu: "2" }));
  const found = findNode(p, c.nodes(), defaultFilters());
  assert.ok(!found.node);
  const pre = preempt(p, c.nodes(), found.rejections, defaultFilters());
  assert.equal(
    fitErrorMessage(3, found.rejections, pre.message),
    "0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 Insufficient cpu. " +
      "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, " +
      "2 No preemption victims found for incoming pod.",
  );
  assert.equal(fitErrorMessage(0, new Map()), "no nodes available to schedule pods");
});

Deno.test("findNode() prefers the least allocated node and preferred node affinity", () => {
  const c = cluster([node("busy"), node("idle")], [pod("x", { nodeName: "busy" }, { cpu: "3" })]);
  assert.equal(findNode(info(pod("p")), c.nodes(), defaultFilters()).node?.name, "idle");
  const prefer = pod("p", {
    affinity: {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{
          weight: 100,
          preference: { matchFields: [{ key: "metadata.name", operator: "In", values: ["busy"] }] },
        }],
      },
    },
  });
  assert.equal(findNode(info(prefer), c.nodes(), defaultFilters()).node?.name, "busy");
});

Deno.test("pickHighest() breaks ties at random among the best", () => {
  assert.equal(pickHighest([1, 5, 3], () => 0.99), 1);
  assert.equal(pickHighest([5, 1, 5], () => 0), 2);
  assert.equal(pickHighest([5, 1, 5], () => 0.99), 0);
});

Deno.test("preempt() picks the fewest lower-priority victims that make room", () => {
  const c = cluster([node("n", { cpu: "2" })], [
    pod("low1", { nodeName: "n", priority: 1 }, { cpu: "1" }),
    pod("low2", { nodeName: "n", priority: 2 }, { cpu: "1" }),
    pod("peer", { nodeName: "n", priority: 100 }, { cpu: "0" }),
  ]);
  const p = info(pod("p", { priority: 100 }, { cpu: "1" }));
  const found = findNode(p, c.nodes(), defaultFilters());
  assert.ok(!found.node);
  const result = preempt(p, c.nodes(), found.rejections, defaultFilters());
  assert.equal(result.candidate?.node.name, "n");
  assert.deepEqual(result.candidate?.victims.map((v) => v.name), ["low1"]);
  const never = info(pod("q", { priority: 100, preemptionPolicy: "Never" }, { cpu: "1" }));
  assert.equal(
    preempt(never, c.nodes(), found.rejections, defaultFilters()).message,
    "preemption: not eligible due to preemptionPolicy=Never.",
  );
});

Deno.test("SchedulingQueue backs off 1 s doubling up to 10 s", async () => {
  const q = new SchedulingQueue(() => Promise.resolve(), () => {});
  try {
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => q.backoffMs(n)), [
      1000,
      2000,
      4000,
      8000,
      10000,
      10000,
    ]);
  } finally {
    await q.stop();
  }
});
