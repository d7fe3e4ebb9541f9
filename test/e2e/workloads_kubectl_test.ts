/**
 * The workload controllers against kubectl, with two simulated nodes (a fake kubelet making
 * bound pods Running and Ready): `kubectl create deployment` reaches 3/3 available spread by
 * the scheduler, and `kubectl scale`, `rollout status`, `rollout restart`, `rollout history`,
 * `rollout undo`, `rollout pause/resume` behave as against kube; the Service in front of it
 * gets its Endpoints and EndpointSlice.
 */
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.ts";
import { startFakeKubelet } from "../support/fake_kubelet.ts";
import { kubectlFor, kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

type Kubectl = {
  ok: (...args: string[]) => Promise<string>;
  // deno-lint-ignore no-explicit-any
  json: (...args: string[]) => Promise<any>;
};

const deadline = { timeoutMs: 120_000, intervalMs: 250 };

async function createdAndSpread({ ok, json }: Kubectl): Promise<void> {
  await ok("create", "deployment", "web", "--image=x", "--replicas=3");
  const status = await ok("rollout", "status", "deployment/web", "--timeout=120s");
  assert.match(status, /deployment "web" successfully rolled out/);
  const d = await json("get", "deployment", "web");
  assert.equal(d.status.availableReplicas, 3);
  assert.equal(d.status.readyReplicas, 3);
  assert.equal(d.metadata.annotations["deployment.kubernetes.io/revision"], "1");
  const table = await ok("get", "deployment", "web");
  assert.match(table, /web\s+3\/3\s+3\s+3\s+/);
  const pods = await json("get", "pods", "-l", "app=web");
  assert.equal(pods.items.length, 3);
  const nodes = new Set(pods.items.map((p: { spec: { nodeName: string } }) => p.spec.nodeName));
  assert.equal(nodes.size, 2, "spread over both nodes");
}

async function serviceEndpoints({ ok, json }: Kubectl): Promise<void> {
  // A Service in front of it gets Endpoints and an EndpointSlice of the ready pods.
  await ok("expose", "deployment", "web", "--port=80", "--target-port=8080");
  await eventually("endpoints", async () => {
    const ep = await json("get", "endpoints", "web");
    return ep.subsets?.[0]?.addresses?.length === 3;
  }, deadline);
  const slices = await json("get", "endpointslices", "-l", "kubernetes.io/service-name=web");
  assert.equal(slices.items.length, 1);
  assert.equal(slices.items[0].endpoints.length, 3);
}

async function scaledRestartedAndUndone({ ok, json }: Kubectl): Promise<void> {
  await ok("scale", "deployment", "web", "--replicas=5");
  await ok("rollout", "status", "deployment/web", "--timeout=120s");
  assert.equal((await json("get", "deployment", "web")).status.availableReplicas, 5);

  // rollout restart: a second ReplicaSet takes over.
  await ok("rollout", "restart", "deployment/web");
  assert.match(
    await ok("rollout", "status", "deployment/web", "--timeout=120s"),
    /successfully rolled out/,
  );
  let sets = await json("get", "replicasets", "-l", "app=web");
  assert.equal(sets.items.length, 2);
  const revisions = sets.items.map((r: { metadata: { annotations: Record<string, string> } }) =>
    r.metadata.annotations["deployment.kubernetes.io/revision"]
  ).sort();
  assert.deepEqual(revisions, ["1", "2"]);
  const history = await ok("rollout", "history", "deployment/web");
  assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);

  // rollout undo (client-side in kubectl 1.32): back to the first template, revision 3.
  assert.match(
    await ok("rollout", "undo", "deployment/web"),
    /deployment.apps\/web rolled back/,
  );
  await ok("rollout", "status", "deployment/web", "--timeout=120s");
  const after = await json("get", "deployment", "web");
  assert.equal(after.metadata.annotations["deployment.kubernetes.io/revision"], "3");
  assert.equal(
    after.spec.template.metadata.annotations?.["kubectl.kubernetes.io/restartedAt"],
    undefined,
  );
  sets = await json("get", "replicasets", "-l", "app=web");
  const active = sets.items.filter((r: { spec: { replicas: number } }) => r.spec.replicas > 0);
  assert.equal(active.length, 1);
  assert.equal(
    active[0].metadata.annotations["deployment.kubernetes.io/revision-history"],
    "1",
  );
}

async function pausedAndResumed({ ok, json }: Kubectl): Promise<void> {
  // pause and resume.
  await ok("rollout", "pause", "deployment/web");
  await ok("set", "image", "deployment/web", "x=y");
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(
    (await json("get", "replicasets", "-l", "app=web")).items.length,
    2,
    "no rollout while paused",
  );
  await ok("rollout", "resume", "deployment/web");
  await ok("rollout", "status", "deployment/web", "--timeout=120s");
  const resumed = await json("get", "deployment", "web");
  assert.equal(resumed.spec.template.spec.containers[0].image, "y");
  assert.equal(resumed.status.updatedReplicas, 5);

  const events = await ok(
    "get",
    "events",
    "--field-selector",
    "involvedObject.kind=Deployment",
  );
  assert.match(events, /ScalingReplicaSet\s+.*Scaled up replica set web-\w+ from 0 to 3/);
}

Deno.test({
  name: "kubectl create/scale/rollout of a Deployment behave as against kube",
  ignore: skipWithoutKubectl("the workload controller kubectl tests"),
  async fn() {
    const s = await startTestServer();
    const kubelet = await startFakeKubelet(s, ["node-a", "node-b"]);
    const k = kubectlFor(s);
    const ok = async (...args: string[]) => kubectlOk(await runKubectl(k, args));
    const json = async (...args: string[]) => JSON.parse(await ok(...args, "-o", "json"));
    try {
      await createdAndSpread({ ok, json });
      await serviceEndpoints({ ok, json });
      await scaledRestartedAndUndone({ ok, json });
      await pausedAndResumed({ ok, json });
    } finally {
      await kubelet.stop();
      await s.close();
    }
  },
});
