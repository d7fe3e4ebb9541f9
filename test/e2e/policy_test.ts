/**
 * End-to-end: policy/v1 PodDisruptionBudget (create, status from the disruption controller,
 * Table, validation, Protobuf) and `pods/eviction` (budgets honoured, 429 with kube's
 * DisruptionBudget cause, dry run, policy/v1beta1 bodies, deleteOptions), then kubectl:
 * `create poddisruptionbudget`, `get pdb`, `drain --dry-run=server` and a real drain.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { API_ONLY_FLAGS } from "../support/api_only.ts";
import { jsonCall, jsonOk } from "../support/json_call.ts";
import { eventually } from "../support/eventually.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";

const NS = "/api/v1/namespaces/default";
const PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PB = "application/vnd.kubernetes.protobuf";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer(API_ONLY_FLAGS);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

/** Creates pod `name` with `labels` and marks it Running and Ready (or not ready). */
async function runningPod(
  t: TestServer,
  name: string,
  labels: Record<string, string>,
  opts: { ready?: boolean; nodeName?: string; owner?: Json } = {},
): Promise<Json> {
  await jsonOk(t, "POST", `${NS}/pods`, {
    metadata: { name, labels, ...(opts.owner ? { ownerReferences: [opts.owner] } : {}) },
    spec: {
      containers: [{ name: "c", image: "nginx" }],
      ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
    },
  });
  // The scheduler may write the pod's status meanwhile (409): read it again.
  for (let attempt = 1;; attempt++) {
    const pod = await jsonOk(t, "GET", `${NS}/pods/${name}`);
    pod.status = {
      ...pod.status,
      phase: "Running",
      conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True" }],
    };
    const r = await t.fetch(`${NS}/pods/${name}/status`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(pod),
    });
    const json = await r.json();
    if (r.status === 409 && attempt < 10) continue;
    assert.ok(r.status < 300, `PUT ${name}/status: ${r.status} ${JSON.stringify(json)}`);
    return json;
  }
}

function eviction(name: string, extra: Json = {}, apiVersion = "policy/v1"): Json {
  return { apiVersion, kind: "Eviction", metadata: { name }, ...extra };
}

/** Waits until the budget's status has the given counts. */
async function statusOf(t: TestServer, name: string, want: Json): Promise<Json> {
  return await eventually(`the status of PDB ${name}`, async () => {
    const pdb = await jsonOk(t, "GET", `${PDBS}/${name}`);
    const s = pdb.status ?? {};
    return Object.entries(want).every(([k, v]) => s[k] === v) ? pdb : undefined;
  });
}

Deno.test("PodDisruptionBudget: create, status from the disruption controller, Table, validation, Protobuf", async () => {
  await withServer(async (t) => {
    const created = await jsonCall(t, "POST", PDBS, {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "web" },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.metadata.generation, 1);
    assert.deepEqual(created.json.status, {
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
    await runningPod(t, "a", { app: "web" });
    await runningPod(t, "b", { app: "web" });
    await runningPod(t, "c", { app: "web" }, { ready: false });
    await runningPod(t, "other", { app: "other" });
    const pdb = await statusOf(t, "web", {
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 3,
      disruptionsAllowed: 1,
      observedGeneration: 1,
    });
    const cond = pdb.status.conditions.find((c: Json) => c.type === "DisruptionAllowed");
    assert.equal(cond.status, "True");
    assert.equal(cond.reason, "SufficientPods");

    const table = await t.fetch(PDBS, { headers: { accept: TABLE } });
    const doc = await table.json();
    assert.deepEqual(doc.columnDefinitions.map((c: Json) => c.name), [
      "Name",
      "Min Available",
      "Max Unavailable",
      "Allowed Disruptions",
      "Age",
    ]);
    assert.deepEqual(doc.rows[0].cells.slice(0, 4), ["web", "1", "N/A", 1]);

    const both = await jsonCall(t, "POST", PDBS, {
      metadata: { name: "bad" },
      spec: { minAvailable: 1, maxUnavailable: "10%" },
    });
    assert.equal(both.status, 422);
    assert.match(
      both.json.message,
      /spec: Invalid value: .*minAvailable and maxUnavailable cannot be both set/,
    );
    const percent = await jsonCall(t, "POST", PDBS, {
      metadata: { name: "bad" },
      spec: { maxUnavailable: "120%" },
    });
    assert.equal(percent.status, 422);
    assert.match(
      percent.json.message,
      /spec\.maxUnavailable: Invalid value: "120%": must not be greater than 100%/,
    );
    const policy = await jsonCall(t, "POST", PDBS, {
      metadata: { name: "bad" },
      spec: { unhealthyPodEvictionPolicy: "Sometimes" },
    });
    assert.equal(policy.status, 422);
    assert.match(
      policy.json.message,
      /spec\.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"/,
    );
    const negative = await jsonCall(t, "POST", PDBS, {
      metadata: { name: "bad" },
      spec: { minAvailable: -1, selector: { matchExpressions: [{ key: "a", operator: "Is" }] } },
    });
    assert.equal(negative.status, 422);
    assert.match(
      negative.json.message,
      /spec\.minAvailable: Invalid value: -1: must be greater than or equal to 0/,
    );
    assert.match(negative.json.message, /not a valid selector operator/);

    // A spec change bumps the generation; the controller catches up with it.
    const patched = await jsonCall(t, "PATCH", `${PDBS}/web`, { spec: { minAvailable: 2 } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    assert.equal(patched.json.metadata.generation, 2);
    await statusOf(t, "web", { desiredHealthy: 2, disruptionsAllowed: 0, observedGeneration: 2 });

    const pb = await t.fetch(`${PDBS}/web`, { headers: { accept: PB } });
    assert.equal(pb.status, 200);
    const decoded = decodeObject(new Uint8Array(await pb.arrayBuffer()));
    assert.equal(decoded.kind, "PodDisruptionBudget");
    assert.equal((decoded.spec as Json).minAvailable, 2);
    const roundTrip = await t.fetch(PDBS, {
      method: "POST",
      headers: { "content-type": PB, accept: "application/json" },
      body: encodeObject({
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        metadata: { name: "pb" },
        spec: { maxUnavailable: "25%", selector: { matchLabels: { app: "x" } } },
      }),
    });
    assert.equal(roundTrip.status, 201, await roundTrip.clone().text());
    assert.equal((await roundTrip.json()).spec.maxUnavailable, "25%");
  });
});

Deno.test("pods/eviction honours PodDisruptionBudgets: 429 with kube's cause, dry run, v1beta1", async () => {
  await withServer(async (t) => {
    await jsonOk(t, "POST", PDBS, {
      metadata: { name: "web" },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
    });
    await runningPod(t, "a", { app: "web" });
    await runningPod(t, "b", { app: "web" });
    await statusOf(t, "web", { currentHealthy: 2, disruptionsAllowed: 1 });

    const mismatch = await jsonCall(t, "POST", `${NS}/pods/a/eviction`, eviction("b"));
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.message, "name in URL does not match name in Eviction object");

    const dry = await jsonCall(t, "POST", `${NS}/pods/a/eviction?dryRun=All`, eviction("a"));
    assert.equal(dry.status, 201, JSON.stringify(dry.json));
    const dryBody = await jsonCall(
      t,
      "POST",
      `${NS}/pods/a/eviction`,
      eviction("a", { deleteOptions: { dryRun: ["All"] } }),
    );
    assert.equal(dryBody.status, 201, JSON.stringify(dryBody.json));
    assert.equal((await jsonCall(t, "GET", `${NS}/pods/a`)).status, 200);
    const unchanged = await jsonOk(t, "GET", `${PDBS}/web`);
    assert.equal(unchanged.status.disruptionsAllowed, 1);
    assert.equal(unchanged.status.disruptedPods, undefined);

    const evicted = await jsonCall(t, "POST", `${NS}/pods/a/eviction`, eviction("a"));
    assert.equal(evicted.status, 201, JSON.stringify(evicted.json));
    assert.equal(evicted.json.kind, "Status");
    assert.equal(evicted.json.status, "Success");
    assert.equal((await jsonCall(t, "GET", `${NS}/pods/a`)).status, 404);

    await statusOf(t, "web", { currentHealthy: 1, disruptionsAllowed: 0 });
    const blocked = await jsonCall(
      t,
      "POST",
      `${NS}/pods/b/eviction`,
      eviction("b", {}, "policy/v1beta1"),
    );
    assert.equal(blocked.status, 429, JSON.stringify(blocked.json));
    assert.equal(blocked.json.reason, "TooManyRequests");
    assert.equal(
      blocked.json.message,
      "Cannot evict pod as it would violate the pod's disruption budget.",
    );
    assert.deepEqual(blocked.json.details.causes, [{
      reason: "DisruptionBudget",
      message: "The disruption budget web needs 1 healthy pods and has 1 currently",
    }]);
    assert.equal((await jsonCall(t, "GET", `${NS}/pods/b`)).status, 200);

    // An unready pod goes while the budget is healthy (IfHealthyBudget), without a disruption.
    await runningPod(t, "sick", { app: "web" }, { ready: false });
    await statusOf(t, "web", { expectedPods: 2, currentHealthy: 1, desiredHealthy: 1 });
    const sick = await jsonCall(t, "POST", `${NS}/pods/sick/eviction`, eviction("sick"));
    assert.equal(sick.status, 201, JSON.stringify(sick.json));

    // Two budgets over one pod: kube's 500.
    await jsonOk(t, "POST", PDBS, {
      metadata: { name: "second" },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: "web" } } },
    });
    const two = await jsonCall(t, "POST", `${NS}/pods/b/eviction`, eviction("b"));
    assert.equal(two.status, 500, JSON.stringify(two.json));
    assert.equal(
      two.json.message,
      "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    );

    // A pod no budget covers, and a pending one, go at once.
    await runningPod(t, "free", { app: "free" });
    const wrongUid = await jsonCall(
      t,
      "POST",
      `${NS}/pods/free/eviction`,
      eviction("free", { deleteOptions: { preconditions: { uid: "not-the-uid" } } }),
    );
    assert.equal(wrongUid.status, 409, JSON.stringify(wrongUid.json));

    assert.equal(
      (await jsonCall(t, "POST", `${NS}/pods/free/eviction`, eviction("free"))).status,
      201,
    );
    await jsonOk(t, "POST", `${NS}/pods`, {
      metadata: { name: "pending", labels: { app: "web" } },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    assert.equal(
      (await jsonCall(t, "POST", `${NS}/pods/pending/eviction`, eviction("pending"))).status,
      201,
    );
    assert.equal((await jsonCall(t, "GET", `${NS}/pods/pending`)).status, 404);
    const wrongKind = await jsonCall(t, "POST", `${NS}/pods/b/eviction`, {
      apiVersion: "v1",
      kind: "Eviction",
      metadata: { name: "b" },
    });
    assert.equal(wrongKind.status, 400);
  });
});

Deno.test("pods/eviction takes a disruption in one guarded update and records the pod", async () => {
  await withServer(async (t) => {
    const rs = await jsonOk(t, "POST", "/apis/apps/v1/namespaces/default/replicasets", {
      metadata: { name: "rs" },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: "rs" } },
        template: {
          metadata: { labels: { app: "rs" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
    });
    const owner = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "rs",
      uid: rs.metadata.uid,
      controller: true,
    };
    await jsonOk(t, "POST", PDBS, {
      metadata: { name: "half" },
      spec: { maxUnavailable: "50%", selector: { matchLabels: { app: "rs" } } },
    });
    for (const n of ["p1", "p2", "p3"]) await runningPod(t, n, { app: "rs" }, { owner });
    // Expected pods come from the ReplicaSet's scale (4): desired 4 - 2 = 2, healthy 3.
    await statusOf(t, "half", {
      expectedPods: 4,
      desiredHealthy: 2,
      currentHealthy: 3,
      disruptionsAllowed: 1,
    });
    const evicted = await jsonCall(t, "POST", `${NS}/pods/p1/eviction`, eviction("p1"));
    assert.equal(evicted.status, 201, JSON.stringify(evicted.json));
    const after = await statusOf(t, "half", { currentHealthy: 2, disruptionsAllowed: 0 });
    assert.equal(after.status.conditions[0].reason, "InsufficientPods");
  });
});

Deno.test({
  name: "kubectl create poddisruptionbudget, get pdb and drain (server dry run and real)",
  ignore: skipWithoutKubectl("the kubectl PodDisruptionBudget tests"),
  async fn() {
    await withServer(async (t) => {
      const k = kubectlFor(t);
      assert.match(
        ok(
          await kubectl(k, [
            "create",
            "poddisruptionbudget",
            "web",
            "--selector=app=web",
            "--min-available=1",
          ]),
        ),
        /poddisruptionbudget.policy\/web created/,
      );
      await jsonOk(t, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
      await runningPod(t, "a", { app: "web" }, { nodeName: "n1" });
      await runningPod(t, "b", { app: "web" }, { nodeName: "n1" });
      const ds = await jsonOk(t, "POST", "/apis/apps/v1/namespaces/default/daemonsets", {
        metadata: { name: "agent" },
        spec: {
          selector: { matchLabels: { app: "agent" } },
          template: {
            metadata: { labels: { app: "agent" } },
            spec: { containers: [{ name: "c", image: "agent" }] },
          },
        },
      });
      await runningPod(t, "agent-1", { app: "agent" }, {
        nodeName: "n1",
        owner: {
          apiVersion: "apps/v1",
          kind: "DaemonSet",
          name: "agent",
          uid: ds.metadata.uid,
          controller: true,
        },
      });
      await statusOf(t, "web", { disruptionsAllowed: 1 });
      const table = ok(await kubectl(k, ["get", "pdb"]));
      assert.match(table, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n/);
      assert.match(table, /\nweb\s+1\s+N\/A\s+1\s+\S+\n/);

      const dry = await kubectl(k, [
        "drain",
        "n1",
        "--dry-run=server",
        "--ignore-daemonsets",
        "--force",
      ]);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /evicting pod default\/a \(server dry run\)/);
      assert.match(dry.stdout, /node\/n1 drained \(server dry run\)/);
      assert.match(dry.stderr, /ignoring DaemonSet-managed Pods: default\/agent-1/);
      assert.doesNotMatch(dry.stdout, /agent-1/);
      assert.equal((await jsonCall(t, "GET", `${NS}/pods/a`)).status, 200);
      assert.equal((await jsonOk(t, "GET", "/api/v1/nodes/n1")).spec?.unschedulable, undefined);

      // Lower the bar so both pods may go, then drain for real.
      ok(await kubectl(k, ["delete", "pdb", "web"]));
      ok(await kubectl(k, ["create", "pdb", "web", "--selector=app=web", "--min-available=0"]));
      await statusOf(t, "web", { disruptionsAllowed: 2 });
      const real = await kubectl(k, [
        "drain",
        "n1",
        "--ignore-daemonsets",
        "--force",
        "--grace-period=0",
        "--timeout=120s",
      ]);
      assert.equal(real.code, 0, real.stderr + real.stdout);
      assert.match(real.stdout, /pod\/a evicted/);
      assert.match(real.stdout, /pod\/b evicted/);
      assert.match(real.stdout, /node\/n1 drained/);
      assert.equal((await jsonCall(t, "GET", `${NS}/pods/a`)).status, 404);
      assert.equal((await jsonCall(t, "GET", `${NS}/pods/agent-1`)).status, 200);
      assert.equal((await jsonOk(t, "GET", "/api/v1/nodes/n1")).spec.unschedulable, true);
    });
  },
});
