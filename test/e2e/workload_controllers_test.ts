/**
 * End-to-end: the workload controllers the API server runs (daemonset, job, ttl-after-finished,
 * cronjob, taint eviction), over HTTPS with simulated nodes: Node objects kept Ready by a fake
 * kubelet in the test, which renews their Leases, runs the pods bound to them (Running and
 * Ready; a Job's pods then Succeeded) and confirms deletions. kubectl reads the results where
 * it exists.
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { KUBECTL, kubectlFor, kubectlOk, runKubectl } from "../support/kubectl.ts";

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

const NS = "/api/v1/namespaces/default";
const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const micro = () => new Date().toISOString().replace("Z", "000Z");

async function call(t: TestServer, method: string, path: string, body?: unknown): Promise<Obj> {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) {
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  }
  return json;
}

/** Like call(), but a conflict or a missing object is not an error. */
async function tryCall(t: TestServer, method: string, path: string, body?: unknown) {
  try {
    return await call(t, method, path, body);
  } catch (err) {
    if (/: (404|409) /.test(String(err))) return undefined;
    throw err;
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A fake kubelet for a set of simulated nodes. */
class FakeKubelets {
  readonly stopped = new Set<string>();
  #timer?: ReturnType<typeof setInterval>;
  #busy = false;
  constructor(readonly t: TestServer, readonly nodes: string[]) {}

  async register(): Promise<void> {
    for (const name of this.nodes) {
      await call(this.t, "POST", "/api/v1/nodes", {
        metadata: { name, labels: { "kubernetes.io/hostname": name } },
      });
      const node = await call(this.t, "GET", `/api/v1/nodes/${name}`);
      const resources = { cpu: "4", memory: "8Gi", pods: "110" };
      node.status = { capacity: resources, allocatable: resources, conditions: [this.#ready()] };
      await call(this.t, "PUT", `/api/v1/nodes/${name}/status`, node);
    }
    await this.tick();
    this.#timer = setInterval(() => this.tick(), 250);
  }

  #ready() {
    return {
      type: "Ready",
      status: "True",
      reason: "KubeletReady",
      message: "ready",
      lastHeartbeatTime: now(),
      lastTransitionTime: now(),
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (const name of this.nodes) if (!this.stopped.has(name)) await this.#renew(name);
      const pods = (await call(this.t, "GET", `${NS}/pods`)).items as Obj[];
      for (const pod of pods) {
        const node = pod.spec.nodeName;
        if (!node || this.stopped.has(node)) continue;
        await this.#run(pod);
      }
    } catch {
      // the next tick tries again
    } finally {
      this.#busy = false;
    }
  }

  async #renew(name: string): Promise<void> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`;
    const lease = await tryCall(this.t, "GET", path);
    if (!lease) {
      await tryCall(
        this.t,
        "POST",
        "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
        {
          metadata: { name },
          spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() },
        },
      );
      return;
    }
    lease.spec.renewTime = micro();
    await tryCall(this.t, "PUT", path, lease);
  }

  /** Runs the pod: Running and Ready, a Job's pod then Succeeded; confirms deletions. */
  async #run(pod: Obj): Promise<void> {
    const path = `${NS}/pods/${pod.metadata.name}`;
    if (pod.metadata.deletionTimestamp) {
      await tryCall(this.t, "DELETE", path, { gracePeriodSeconds: 0 });
      return;
    }
    const phase = pod.status?.phase;
    const isJob = (pod.metadata.ownerReferences ?? []).some((r: Obj) => r.kind === "Job");
    if (phase === "Succeeded" || phase === "Failed" || (phase === "Running" && !isJob)) return;
    const done = phase === "Running";
    const container = pod.spec.containers[0].name;
    pod.status = {
      ...pod.status,
      phase: done ? "Succeeded" : "Running",
      startTime: pod.status?.startTime ?? now(),
      conditions: [
        { type: "PodScheduled", status: "True", lastTransitionTime: now() },
        { type: "Ready", status: done ? "False" : "True", lastTransitionTime: now() },
      ],
      containerStatuses: [{
        name: container,
        image: pod.spec.containers[0].image,
        imageID: "",
        ready: !done,
        restartCount: 0,
        state: done
          ? { terminated: { exitCode: 0, reason: "Completed" } }
          : { running: { startedAt: now() } },
      }],
    };
    await tryCall(this.t, "PUT", `${path}/status`, pod);
  }
}

const template = (labels: Obj, restartPolicy = "Always") => ({
  metadata: { labels },
  spec: { restartPolicy, containers: [{ name: "c", image: "busybox" }] },
});

Deno.test("workload controllers: DaemonSet, Job with TTL, CronJob and taint eviction on simulated nodes", async () => {
  const t = await startTestServer(["--node-monitor-grace-period=3s"]);
  const kubelets = new FakeKubelets(t, ["n1", "n2"]);
  try {
    await kubelets.register();

    // A DaemonSet lands one pod on each node.
    await call(t, "POST", "/apis/apps/v1/namespaces/default/daemonsets", {
      metadata: { name: "agent" },
      spec: { selector: { matchLabels: { app: "agent" } }, template: template({ app: "agent" }) },
    });
    const ds = await waitFor("the DaemonSet ready on both nodes", async () => {
      const d = await call(t, "GET", "/apis/apps/v1/namespaces/default/daemonsets/agent");
      return d.status?.numberReady === 2 && d.status?.desiredNumberScheduled === 2 ? d : undefined;
    });
    assert.equal(ds.status.updatedNumberScheduled, 2);
    if (KUBECTL) {
      const out = kubectlOk(await runKubectl(kubectlFor(t), ["get", "ds", "agent"]));
      assert.match(out, /\nagent\s+2\s+2\s+2\s+2\s+2\s/);
    } else console.warn("kubectl is not on PATH: the kubectl steps are skipped");
    const dsPods = (await call(t, "GET", `${NS}/pods?labelSelector=app%3Dagent`)).items as Obj[];
    assert.deepEqual(dsPods.map((p) => p.spec.nodeName).sort(), ["n1", "n2"]);

    // A Job runs to completion, then goes after ttlSecondsAfterFinished, with its pods.
    await call(t, "POST", "/apis/batch/v1/namespaces/default/jobs", {
      metadata: { name: "pi" },
      spec: {
        completions: 2,
        parallelism: 2,
        ttlSecondsAfterFinished: 3,
        template: template({}, "Never"),
      },
    });
    const done = await waitFor("the Job complete", async () => {
      const j = await tryCall(t, "GET", "/apis/batch/v1/namespaces/default/jobs/pi");
      return j?.status?.conditions?.some((c: Obj) => c.type === "Complete" && c.status === "True")
        ? j
        : undefined;
    });
    assert.equal(done.status.succeeded, 2);
    if (KUBECTL) {
      const out = kubectlOk(await runKubectl(kubectlFor(t), ["get", "job", "pi"]));
      assert.match(out, /\npi\s+Complete\s+2\/2\s/);
    }
    await waitFor(
      "the finished Job deleted by its TTL",
      async () =>
        (await tryCall(t, "GET", "/apis/batch/v1/namespaces/default/jobs/pi")) === undefined,
    );
    await waitFor("the Job's pods gone", async () => {
      const pods = (await call(t, "GET", `${NS}/pods?labelSelector=job-name%3Dpi`)).items;
      return pods.length === 0;
    });

    // A CronJob fires on its schedule.
    await call(t, "POST", "/apis/batch/v1/namespaces/default/cronjobs", {
      metadata: { name: "tick" },
      spec: { schedule: "@every 2s", jobTemplate: { spec: { template: template({}, "Never") } } },
    });
    const fired = await waitFor("a Job of the CronJob", async () => {
      const jobs = (await call(t, "GET", "/apis/batch/v1/namespaces/default/jobs")).items as Obj[];
      return jobs.find((j) => j.metadata.ownerReferences?.[0]?.name === "tick");
    });
    assert.match(fired.metadata.name, /^tick-\d+$/);
    const cj = await call(t, "GET", "/apis/batch/v1/namespaces/default/cronjobs/tick");
    assert.ok(cj.status.lastScheduleTime);

    // A node whose lease stops: its pods go once their toleration expires; daemon pods stay.
    await call(t, "POST", `${NS}/pods`, {
      metadata: { name: "brief" },
      spec: {
        nodeName: "n2",
        containers: [{ name: "c", image: "busybox" }],
        tolerations: [{
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 2,
        }],
      },
    });
    await waitFor(
      "brief running",
      async () => (await call(t, "GET", `${NS}/pods/brief`)).status?.phase === "Running",
    );
    kubelets.stopped.add("n2");
    const evicted = await waitFor("brief evicted", async () => {
      const p = await call(t, "GET", `${NS}/pods/brief`);
      return p.metadata.deletionTimestamp ? p : undefined;
    });
    const cond = evicted.status.conditions.find((c: Obj) => c.type === "DisruptionTarget");
    assert.equal(cond?.reason, "DeletionByTaintManager");
    const node = await call(t, "GET", "/api/v1/nodes/n2");
    assert.ok(
      node.spec.taints.some((x: Obj) =>
        x.key === "node.kubernetes.io/unreachable" && x.effect === "NoExecute"
      ),
    );
    const events = (await call(t, "GET", `${NS}/events?fieldSelector=involvedObject.name%3Dbrief`))
      .items as Obj[];
    assert.ok(
      events.some((e) =>
        e.reason === "TaintManagerEviction" &&
        e.message === "Marking for deletion Pod default/brief"
      ),
    );
    const daemonOnN2 = (await call(t, "GET", `${NS}/pods?labelSelector=app%3Dagent`)).items
      .find((p: Obj) => p.spec.nodeName === "n2");
    assert.equal(
      daemonOnN2.metadata.deletionTimestamp,
      undefined,
      "daemon pods tolerate unreachable",
    );
  } finally {
    kubelets.stop();
    await t.close();
  }
});
