/**
 * End-to-end over HTTPS for HorizontalPodAutoscaler, stored as autoscaling/v2 and served as
 * autoscaling/v1 too: defaults, the v1 form's annotations and a lossless round trip, watch and
 * patches at each version, Protobuf, Table, status, validation errors, discovery, and kubectl
 * `autoscale` and `get hpa`.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { kubectlFor, kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";
import { WatchStream } from "../apiserver/watch/watch_stream.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const METRICS = "autoscaling.alpha.kubernetes.io/metrics";

async function withServer(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function call(t: TestServer, method: string, path: string, body?: unknown, type?: string) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const REF = { kind: "Deployment", name: "web", apiVersion: "apps/v1" };

function v2Hpa(name: string): Json {
  return {
    metadata: { name },
    spec: {
      scaleTargetRef: REF,
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
        },
        {
          type: "Resource",
          resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } },
        },
        {
          type: "Pods",
          pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "10" } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
    },
  };
}

Deno.test("HorizontalPodAutoscaler: a v1 object defaults, reads as v2 and back losslessly", async () => {
  await withServer(async (t) => {
    const created = await write(t, "POST", V1, {
      metadata: { name: "plain" },
      spec: { scaleTargetRef: REF, maxReplicas: 3 },
    });
    assert.equal(created.apiVersion, "autoscaling/v1");
    assert.equal(created.spec.minReplicas, 1);
    assert.equal(created.spec.targetCPUUtilizationPercentage, 80);
    assert.deepEqual(created.status, { currentReplicas: 0, desiredReplicas: 0 });
    const v2 = await write(t, "GET", `${V2}/plain`);
    assert.equal(v2.apiVersion, "autoscaling/v2");
    assert.equal(v2.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(v2.spec.metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
      },
    ]);
    assert.equal(v2.metadata.annotations, undefined);
    const again = await write(t, "GET", `${V1}/plain`);
    assert.deepEqual(again, created);
    // A v1 PUT of what it read changes nothing.
    const put = await write(t, "PUT", `${V1}/plain`, again);
    assert.equal(put.metadata.resourceVersion, created.metadata.resourceVersion);
  });
});

Deno.test("HorizontalPodAutoscaler: v2-only fields survive a v1 read-modify-write", async () => {
  await withServer(async (t) => {
    const created = await write(t, "POST", V2, v2Hpa("rich"));
    assert.deepEqual(created.spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: "Max",
      policies: [
        { type: "Pods", value: 4, periodSeconds: 15 },
        { type: "Percent", value: 100, periodSeconds: 15 },
      ],
    });
    assert.equal(created.spec.behavior.scaleDown.stabilizationWindowSeconds, 60);
    const v1 = await write(t, "GET", `${V1}/rich`);
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 60);
    assert.deepEqual(JSON.parse(v1.metadata.annotations[METRICS]), [
      { type: "Resource", resource: { name: "memory", targetAverageValue: "500Mi" } },
      { type: "Pods", pods: { metricName: "rps", targetAverageValue: "10" } },
    ]);
    // As Kubernetes writes it: Go's JSON of the internal type (field names, nulls).
    assert.deepEqual(
      JSON.parse(v1.metadata.annotations["autoscaling.alpha.kubernetes.io/behavior"]),
      {
        ScaleUp: {
          StabilizationWindowSeconds: 0,
          SelectPolicy: "Max",
          Policies: [
            { Type: "Pods", Value: 4, PeriodSeconds: 15 },
            { Type: "Percent", Value: 100, PeriodSeconds: 15 },
          ],
        },
        ScaleDown: {
          StabilizationWindowSeconds: 60,
          SelectPolicy: "Max",
          Policies: [{ Type: "Percent", Value: 100, PeriodSeconds: 15 }],
        },
      },
    );
    v1.spec.maxReplicas = 8;
    const updated = await write(t, "PUT", `${V1}/rich`, v1);
    assert.equal(updated.spec.maxReplicas, 8);
    const back = await write(t, "GET", `${V2}/rich`);
    assert.equal(back.spec.maxReplicas, 8);
    assert.deepEqual(back.spec.behavior, created.spec.behavior);
    // As Kubernetes: the CPU utilization metric comes back after the others.
    assert.deepEqual(back.spec.metrics, [
      created.spec.metrics[1],
      created.spec.metrics[2],
      created.spec.metrics[0],
    ]);
    assert.equal(back.metadata.annotations, undefined);
  });
});

Deno.test("HorizontalPodAutoscaler: status at v2 shows in v1's fields and annotations", async () => {
  await withServer(async (t) => {
    await write(t, "POST", V2, v2Hpa("st"));
    const status = {
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [{
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: 70, averageValue: "120m" } },
      }],
      conditions: [{ type: "AbleToScale", status: "True", reason: "ReadyForNewScale" }],
    };
    const r = await call(t, "PATCH", `${V2}/st/status`, { status }, "application/merge-patch+json");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v1 = await write(t, "GET", `${V1}/st/status`);
    assert.equal(v1.status.currentCPUUtilizationPercentage, 70);
    assert.equal(v1.status.currentReplicas, 3);
    const ann = v1.metadata.annotations;
    assert.deepEqual(
      JSON.parse(ann["autoscaling.alpha.kubernetes.io/conditions"]),
      status.conditions,
    );
    assert.deepEqual(JSON.parse(ann["autoscaling.alpha.kubernetes.io/current-metrics"]), [
      {
        type: "Resource",
        resource: { name: "cpu", currentAverageUtilization: 70, currentAverageValue: "120m" },
      },
    ]);
    // A v1 status update keeps v2's current metrics and conditions.
    v1.status.desiredReplicas = 5;
    const put = await write(t, "PUT", `${V1}/st/status`, v1);
    assert.equal(put.status.desiredReplicas, 5);
    const v2 = await write(t, "GET", `${V2}/st`);
    assert.equal(v2.status.desiredReplicas, 5);
    assert.deepEqual(v2.status.conditions, status.conditions);
    assert.deepEqual(v2.status.currentMetrics, status.currentMetrics);
  });
});

Deno.test("HorizontalPodAutoscaler: patches and apply at each version", async () => {
  await withServer(async (t) => {
    await write(t, "POST", V1, {
      metadata: { name: "p" },
      spec: { scaleTargetRef: REF, maxReplicas: 3 },
    });
    const merge = await call(t, "PATCH", `${V1}/p`, {
      spec: { targetCPUUtilizationPercentage: 55 },
    }, "application/merge-patch+json");
    assert.equal(merge.status, 200, JSON.stringify(merge.body));
    assert.equal(merge.body.spec.targetCPUUtilizationPercentage, 55);
    const smp = await call(
      t,
      "PATCH",
      `${V1}/p`,
      { spec: { maxReplicas: 4 } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(smp.body.spec.maxReplicas, 4);
    const jp = await call(t, "PATCH", `${V2}/p`, [{
      op: "replace",
      path: "/spec/minReplicas",
      value: 2,
    }], "application/json-patch+json");
    assert.equal(jp.status, 200, JSON.stringify(jp.body));
    assert.equal(jp.body.spec.metrics[0].resource.target.averageUtilization, 55);
    const apply = await call(
      t,
      "PATCH",
      `${V1}/p?fieldManager=v1-tool&force=true`,
      JSON.stringify({
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "p" },
        spec: { scaleTargetRef: REF, maxReplicas: 7 },
      }),
      "application/apply-patch+yaml",
    );
    assert.equal(apply.status, 200, JSON.stringify(apply.body));
    assert.equal(apply.body.apiVersion, "autoscaling/v1");
    assert.equal(apply.body.spec.maxReplicas, 7);
    const mf = apply.body.metadata.managedFields;
    assert.equal(mf.find((m: Json) => m.manager === "v1-tool").apiVersion, "autoscaling/v1");
    assert.ok(mf.some((m: Json) => m.apiVersion === "autoscaling/v2"), JSON.stringify(mf));
    const v2 = await write(t, "GET", `${V2}/p`);
    assert.equal(v2.spec.maxReplicas, 7);
    assert.equal(v2.spec.minReplicas, 2);
    const applyV2 = await call(
      t,
      "PATCH",
      `${V2}/fresh?fieldManager=v2-tool`,
      JSON.stringify({
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "fresh" },
        spec: { scaleTargetRef: REF, maxReplicas: 2 },
      }),
      "application/apply-patch+yaml",
    );
    assert.equal(applyV2.status, 201, JSON.stringify(applyV2.body));
    const freshV1 = await write(t, "GET", `${V1}/fresh`);
    assert.equal(freshV1.spec.targetCPUUtilizationPercentage, 80);
  });
});

Deno.test("HorizontalPodAutoscaler: watch at each version converts every event", async () => {
  await withServer(async (t) => {
    const w1 = await watch(t, "watch=true", V1);
    const w2 = await watch(t, "watch=true", V2);
    const tableRes = await t.fetch(`${V1}?watch=true`, { headers: { accept: TABLE } });
    assert.equal(tableRes.status, 200);
    const wt = new WatchStream(tableRes);
    const created = await write(t, "POST", V2, v2Hpa("w"));
    await call(t, "PATCH", `${V1}/w`, { spec: { maxReplicas: 9 } }, "application/merge-patch+json");
    await write(t, "DELETE", `${V2}/w`);
    const e1 = await w1.take(3);
    const e2 = await w2.take(3);
    const [row] = await wt.take(1);
    await wt.cancel();
    const table = row.object as Json;
    assert.equal(table.kind, "Table");
    assert.deepEqual(table.rows[0].cells.slice(0, 3), [
      "w",
      "Deployment/web",
      "cpu: <unknown>/60%, memory: <unknown>/500Mi + 1 more...",
    ]);
    await w1.cancel();
    await w2.cancel();
    assert.deepEqual(e1.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
    assert.deepEqual(e2.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
    for (const e of e1) {
      assert.equal(e.object.apiVersion, "autoscaling/v1");
      assert.equal(e.object.spec.targetCPUUtilizationPercentage, 60);
    }
    for (const e of e2) assert.equal((e.object as Json).apiVersion, "autoscaling/v2");
    assert.equal((e1[1].object as Json).spec.maxReplicas, 9);
    assert.equal(e1[0].object.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(e2[0].object.metadata.resourceVersion, created.metadata.resourceVersion);
  });
});

Deno.test("HorizontalPodAutoscaler: Protobuf and Table at each version", async () => {
  await withServer(async (t) => {
    await write(t, "POST", V2, v2Hpa("pb"));
    for (const base of [V1, V2]) {
      const table = await (await t.fetch(base, { headers: { accept: TABLE } })).json();
      assert.deepEqual(
        table.columnDefinitions.map((d: Json) => d.name),
        ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"],
      );
      assert.deepEqual(table.rows[0].cells.slice(0, 6), [
        "pb",
        "Deployment/web",
        "cpu: <unknown>/60%, memory: <unknown>/500Mi + 1 more...",
        "2",
        6,
        0,
      ]);
    }
    for (const base of [V2, V1]) {
      const json = await write(t, "GET", `${base}/pb`);
      const res = await t.fetch(`${base}/pb`, { headers: { accept: PB } });
      assert.equal(res.headers.get("content-type"), PB);
      const decoded = decodeObject(new Uint8Array(await res.arrayBuffer()));
      assert.deepEqual(decoded, json, base);
      const put = await t.fetch(`${base}/pb`, {
        method: "PUT",
        headers: { "content-type": PB, accept: "application/json" },
        body: encodeObject(decoded),
      });
      assert.equal(put.status, 200, await put.clone().text());
      // A v1 write moves the CPU utilization metric last (as Kubernetes does): only the
      // v2 write is a no-op.
      const written = await put.json();
      if (base === V2) assert.deepEqual(written, json, base);
      else assert.deepEqual(written.spec, json.spec, base);
      const list = await t.fetch(base, { headers: { accept: PB } });
      const items = decodeObject(new Uint8Array(await list.arrayBuffer())) as Json;
      assert.equal(items.kind, "HorizontalPodAutoscalerList");
      assert.equal(items.apiVersion, base === V1 ? "autoscaling/v1" : "autoscaling/v2");
    }
  });
});

Deno.test("HorizontalPodAutoscaler: validation errors", async () => {
  await withServer(async (t) => {
    const bad = await call(t, "POST", V2, {
      metadata: { name: "bad" },
      spec: {
        scaleTargetRef: { kind: "", name: "web" },
        minReplicas: 0,
        maxReplicas: 1,
        metrics: [{
          type: "Pods",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
        }],
      },
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    const msg = bad.body.message as string;
    assert.match(msg, /HorizontalPodAutoscaler.autoscaling "bad" is invalid/);
    assert.match(msg, /spec.minReplicas: Invalid value: 0: must be greater than or equal to 1/);
    assert.match(msg, /spec.scaleTargetRef.kind: Required value/);
    assert.match(
      msg,
      /spec.metrics\[0\].pods: Required value: must populate information for the given metric source/,
    );
    assert.match(
      msg,
      /spec.metrics\[0\].resource: Forbidden: must populate the given metric source only/,
    );
    const v1 = await call(t, "POST", V1, {
      metadata: { name: "bad1" },
      spec: { scaleTargetRef: REF, minReplicas: 5, maxReplicas: 2 },
    });
    assert.equal(v1.status, 422, JSON.stringify(v1.body));
    assert.match(
      v1.body.message,
      /spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`/,
    );
    const behavior = await call(t, "POST", V2, {
      metadata: { name: "bad2" },
      spec: {
        scaleTargetRef: REF,
        maxReplicas: 2,
        behavior: { scaleUp: { policies: [{ type: "Pods", value: 0, periodSeconds: 2000 }] } },
      },
    });
    assert.equal(behavior.status, 422);
    assert.match(
      behavior.body.message,
      /spec.behavior.scaleUp.policies\[0\].value: Invalid value: 0: must be greater than zero/,
    );
    assert.match(
      behavior.body.message,
      /periodSeconds: Invalid value: 2000: must be less than or equal to 1800/,
    );
  });
});

Deno.test("HorizontalPodAutoscaler: discovery serves v2 (preferred) and v1", async () => {
  await withServer(async (t) => {
    const group = await write(t, "GET", "/apis/autoscaling");
    assert.deepEqual(group.versions.map((v: Json) => v.version), ["v2", "v1"]);
    assert.equal(group.preferredVersion.version, "v2");
    const v1 = await write(t, "GET", "/apis/autoscaling/v1");
    const v2 = await write(t, "GET", "/apis/autoscaling/v2");
    const hpa1 = v1.resources.find((r: Json) => r.name === "horizontalpodautoscalers");
    const hpa2 = v2.resources.find((r: Json) => r.name === "horizontalpodautoscalers");
    assert.deepEqual(hpa1.shortNames, ["hpa"]);
    assert.deepEqual(hpa2.categories, ["all"]);
    assert.equal(hpa1.storageVersionHash, hpa2.storageVersionHash);
    assert.ok(hpa1.storageVersionHash);
    assert.ok(v2.resources.some((r: Json) => r.name === "horizontalpodautoscalers/status"));
  });
});

Deno.test("HorizontalPodAutoscaler: kubectl autoscale and get hpa", async () => {
  if (skipWithoutKubectl("kubectl autoscale")) return;
  await withServer(async (t) => {
    const k = kubectlFor({ server: t.server, dir: t.dir });
    await write(t, "POST", "/apis/apps/v1/namespaces/default/deployments", {
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "w", image: "nginx" }] },
        },
      },
    });
    kubectlOk(
      await runKubectl(k, [
        "autoscale",
        "deployment",
        "web",
        "--min=2",
        "--max=5",
        "--cpu-percent=80",
      ]),
    );
    const out = kubectlOk(await runKubectl(k, ["get", "hpa"]));
    const lines = out.trim().split("\n");
    assert.match(lines[0], /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    assert.match(lines[1], /^web\s+Deployment\/web\s+cpu: <unknown>\/80%\s+2\s+5\s+0\s+\S+$/);
    const v1 = await write(t, "GET", `${V1}/web`);
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 80);
    kubectlOk(await runKubectl(k, ["get", "hpa.v1.autoscaling", "web", "-o", "name"]));
    const describe = kubectlOk(await runKubectl(k, ["describe", "hpa", "web"]));
    assert.match(describe, /Min replicas:\s+2/);
    assert.match(describe, /Max replicas:\s+5/);
    const explain = kubectlOk(await runKubectl(k, ["explain", "hpa.spec.behavior.scaleUp"]));
    assert.match(explain, /stabilizationWindowSeconds/);
    const manifest = JSON.stringify({
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "applied", namespace: "default" },
      spec: { scaleTargetRef: REF, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    });
    const file = `${t.dir}/hpa.json`;
    await Deno.writeTextFile(file, manifest);
    kubectlOk(await runKubectl(k, ["apply", "--server-side", "-f", file]));
    kubectlOk(await runKubectl(k, ["apply", "-f", file]));
    const v2 = await write(t, "GET", `${V2}/applied`);
    assert.equal(v2.spec.metrics[0].resource.target.averageUtilization, 50);
  });
});
