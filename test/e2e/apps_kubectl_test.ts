/**
 * End-to-end with the real kubectl against the apps/v1 and batch/v1 kinds: create deployment,
 * scale it, get (plain, wide, all), rollout restart and history, create job and cronjob. Skips
 * where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";
import { API_ONLY_FLAGS } from "../support/api_only.ts";

Deno.test({
  name: "kubectl create, scale and get deployment work against the server",
  ignore: skipWithoutKubectl("the kubectl deployment tests"),
  async fn() {
    const s = await startTestServer(API_ONLY_FLAGS);
    try {
      const k = kubectlFor(s);
      assert.match(
        ok(await kubectl(k, ["create", "deployment", "web", "--image=nginx"])),
        /deployment.apps\/web created/,
      );
      const got = JSON.parse(ok(await kubectl(k, ["get", "deploy", "web", "-o", "json"])));
      assert.equal(got.spec.replicas, 1);
      assert.deepEqual(got.spec.strategy, {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
      });
      assert.equal(got.spec.revisionHistoryLimit, 10);
      assert.equal(got.spec.progressDeadlineSeconds, 600);
      const c = got.spec.template.spec.containers[0];
      assert.equal(c.imagePullPolicy, "Always");
      assert.equal(c.terminationMessagePath, "/dev/termination-log");
      assert.equal(got.spec.template.spec.restartPolicy, "Always");
      assert.equal(got.metadata.generation, 1);
      assert.match(
        ok(await kubectl(k, ["scale", "deployment", "web", "--replicas=3"])),
        /deployment.apps\/web scaled/,
      );
      const scaled = JSON.parse(ok(await kubectl(k, ["get", "deployment/web", "-o", "json"])));
      assert.equal(scaled.spec.replicas, 3);
      assert.equal(scaled.metadata.generation, 2);
      const table = ok(await kubectl(k, ["get", "deploy"]));
      assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\n/);
      assert.match(table, /\nweb\s+0\/3\s+0\s+0\s+\S+\n/);
      const wide = ok(await kubectl(k, ["get", "deploy", "-o", "wide"]));
      assert.match(
        wide,
        /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
      );
      assert.match(wide, /\nweb\s+0\/3\s+0\s+0\s+\S+\s+nginx\s+nginx\s+app=web\n/);
      const all = ok(await kubectl(k, ["get", "all"]));
      assert.match(all, /deployment.apps\/web\s+0\/3/);
      const explained = ok(await kubectl(k, ["explain", "deployment.spec.strategy"]));
      assert.match(explained, /GROUP:\s+apps\s+KIND:\s+Deployment/);
      assert.match(explained, /rollingUpdate/);
      const manifest = (replicas: number) =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa\nspec:\n  replicas: ${replicas}\n` +
        `  selector:\n    matchLabels: {app: ssa}\n  template:\n    metadata:\n      labels: {app: ssa}\n` +
        `    spec:\n      containers:\n      - name: ssa\n        image: nginx:1.27\n`;
      assert.match(
        ok(await kubectl(k, ["apply", "--server-side", "-f", "-"], manifest(2))),
        /deployment.apps\/ssa serverside-applied/,
      );
      ok(await kubectl(k, ["apply", "--server-side", "-f", "-"], manifest(5)));
      const ssa = JSON.parse(ok(await kubectl(k, ["get", "deploy", "ssa", "-o", "json"])));
      assert.equal(ssa.spec.replicas, 5);
      assert.equal(ssa.metadata.generation, 2);
      const described = ok(await kubectl(k, ["describe", "deployment", "web"]));
      assert.match(described, /Replicas:\s+3 desired/);
      assert.match(described, /StrategyType:\s+RollingUpdate/);
      assert.match(
        ok(await kubectl(k, ["rollout", "restart", "deployment", "web"])),
        /deployment.apps\/web restarted/,
      );
      const restarted = JSON.parse(ok(await kubectl(k, ["get", "deploy", "web", "-o", "json"])));
      assert.ok(restarted.spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]);
      // rollout history reads the ReplicaSets the deployment controls (the deployment controller
      // is off in this server, so this one is written as it would write it).
      const rs = {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name: "web-1",
          labels: { app: "web" },
          annotations: {
            "deployment.kubernetes.io/revision": "1",
            "kubernetes.io/change-cause": "first",
          },
          ownerReferences: [{
            apiVersion: "apps/v1",
            kind: "Deployment",
            name: "web",
            uid: restarted.metadata.uid,
            controller: true,
          }],
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "web" } },
          template: restarted.spec.template,
        },
      };
      ok(await kubectl(k, ["create", "-f", "-"], JSON.stringify(rs)));
      assert.match(
        ok(await kubectl(k, ["rollout", "history", "deployment/web"])),
        /REVISION\s+CHANGE-CAUSE\n1\s+first\n/,
      );
      assert.match(
        ok(await kubectl(k, ["delete", "deployment", "web", "ssa"])),
        /deployment.apps "web" deleted/,
      );
    } finally {
      await s.close();
    }
  },
});

Deno.test({
  name: "kubectl create job and cronjob, and get them, work against the server",
  ignore: skipWithoutKubectl("the kubectl job tests"),
  async fn() {
    const s = await startTestServer(API_ONLY_FLAGS);
    try {
      const k = kubectlFor(s);
      assert.match(
        ok(await kubectl(k, ["create", "job", "once", "--image=busybox", "--", "true"])),
        /job.batch\/once created/,
      );
      const job = JSON.parse(ok(await kubectl(k, ["get", "job", "once", "-o", "json"])));
      const uid = job.metadata.uid;
      assert.deepEqual(job.spec.selector, {
        matchLabels: { "batch.kubernetes.io/controller-uid": uid },
      });
      assert.equal(job.spec.template.metadata.labels["job-name"], "once");
      assert.equal(job.spec.template.metadata.labels["controller-uid"], uid);
      assert.equal(job.spec.backoffLimit, 6);
      assert.equal(job.spec.completions, 1);
      assert.equal(job.spec.parallelism, 1);
      assert.equal(job.spec.completionMode, "NonIndexed");
      assert.equal(job.spec.suspend, false);
      assert.equal(job.spec.template.spec.restartPolicy, "Never");
      const jobs = ok(await kubectl(k, ["get", "jobs", "-o", "wide"]));
      assert.match(
        jobs,
        /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
      );
      assert.match(
        jobs,
        /\nonce\s+Running\s+0\/1\s+(\S+\s+)?\S+\s+once\s+busybox\s+batch.kubernetes.io\/controller-uid=/,
      );
      assert.match(
        ok(
          await kubectl(k, [
            "create",
            "cronjob",
            "tick",
            "--image=busybox",
            "--schedule=*/5 * * * *",
          ]),
        ),
        /cronjob.batch\/tick created/,
      );
      const cj = JSON.parse(ok(await kubectl(k, ["get", "cj", "tick", "-o", "json"])));
      assert.equal(cj.spec.concurrencyPolicy, "Allow");
      assert.equal(cj.spec.suspend, false);
      assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
      assert.equal(cj.spec.failedJobsHistoryLimit, 1);
      const cjs = ok(await kubectl(k, ["get", "cronjobs"]));
      assert.match(cjs, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\n/);
      assert.match(cjs, /\ntick\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+\n/);
      assert.match(
        ok(await kubectl(k, ["create", "job", "manual", "--from=cronjob/tick"])),
        /job.batch\/manual created/,
      );
      const bad = await kubectl(k, [
        "create",
        "cronjob",
        "bad",
        "--image=busybox",
        "--schedule=nope",
      ]);
      assert.notEqual(bad.code, 0);
      assert.match(
        bad.stderr,
        /spec.schedule: Invalid value: "nope": expected exactly 5 fields, found 1: \[nope\]/,
      );
      const all = ok(await kubectl(k, ["get", "all"]));
      assert.match(all, /job.batch\/once/);
      assert.match(all, /cronjob.batch\/tick/);
    } finally {
      await s.close();
    }
  },
});

const WORKLOADS = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: postgres:16
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      nodeSelector: {role: edge}
      containers:
      - name: agent
        image: busybox:1.36
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: front
spec:
  replicas: 2
  selector:
    matchLabels: {app: front}
  template:
    metadata:
      labels: {app: front}
    spec:
      containers:
      - name: front
        image: nginx:1.27
`;

Deno.test({
  name: "kubectl apply and get of statefulsets, daemonsets and replicasets work against the server",
  ignore: skipWithoutKubectl("the kubectl workload tests"),
  async fn() {
    const s = await startTestServer(API_ONLY_FLAGS);
    try {
      const k = kubectlFor(s);
      const applied = ok(await kubectl(k, ["apply", "-f", "-"], WORKLOADS));
      assert.match(applied, /statefulset.apps\/db created/);
      assert.match(applied, /daemonset.apps\/agent created/);
      assert.match(applied, /replicaset.apps\/front created/);
      assert.match(
        ok(await kubectl(k, ["apply", "-f", "-"], WORKLOADS)),
        /statefulset.apps\/db unchanged/,
      );
      const sts = ok(await kubectl(k, ["get", "sts", "-o", "wide"]));
      assert.match(sts, /^NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\n/);
      assert.match(sts, /\ndb\s+0\/1\s+\S+\s+db\s+postgres:16\n/);
      const ds = ok(await kubectl(k, ["get", "ds"]));
      assert.match(
        ds,
        /^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\n/,
      );
      assert.match(ds, /\nagent\s+0\s+0\s+0\s+0\s+0\s+role=edge\s+\S+\n/);
      const rs = ok(await kubectl(k, ["get", "rs", "-o", "wide"]));
      assert.match(
        rs,
        /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
      );
      assert.match(rs, /\nfront\s+2\s+0\s+0\s+\S+\s+front\s+nginx:1.27\s+app=front\n/);
      ok(await kubectl(k, ["scale", "sts", "db", "--replicas=4"]));
      ok(await kubectl(k, ["scale", "rs", "front", "--replicas=0"]));
      const db = JSON.parse(ok(await kubectl(k, ["get", "sts", "db", "-o", "json"])));
      assert.equal(db.spec.replicas, 4);
      assert.equal(db.spec.podManagementPolicy, "OrderedReady");
      assert.deepEqual(db.spec.updateStrategy, {
        type: "RollingUpdate",
        rollingUpdate: { partition: 0 },
      });
      const front = JSON.parse(ok(await kubectl(k, ["get", "rs", "front", "-o", "json"])));
      assert.equal(front.spec.replicas, 0);
      const agent = JSON.parse(ok(await kubectl(k, ["get", "ds", "agent", "-o", "json"])));
      assert.deepEqual(agent.spec.updateStrategy, {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
      });
    } finally {
      await s.close();
    }
  },
});
