import assert from "node:assert/strict";
import {
  createApiServerMetrics,
  dryRunLabel,
  EXPOSITION_CONTENT_TYPE,
  metricsHandler,
  MetricsRegistry,
  reportedVerb,
  REQUEST_DURATION_BUCKETS,
  type RequestObservation,
} from "../../../apiserver/metrics/mod.ts";

Deno.test("reportedVerb() maps requests to Kubernetes' verb label", async (t) => {
  const cases: [string, Parameters<typeof reportedVerb>[0], string][] = [
    ["get one", { method: "GET", scope: "resource" }, "GET"],
    ["list namespaced", { method: "GET", scope: "namespace" }, "LIST"],
    ["list cluster", { method: "GET", scope: "cluster" }, "LIST"],
    ["head collection", { method: "HEAD", scope: "namespace" }, "LIST"],
    ["non-resource get", { method: "GET", scope: "" }, "GET"],
    ["watch", { method: "GET", scope: "namespace", watch: true }, "WATCH"],
    ["create", { method: "POST", scope: "resource" }, "POST"],
    ["update", { method: "PUT", scope: "resource" }, "PUT"],
    ["merge patch", {
      method: "PATCH",
      scope: "resource",
      contentType: "application/merge-patch+json",
    }, "PATCH"],
    [
      "apply",
      { method: "PATCH", scope: "resource", contentType: "application/apply-patch+yaml" },
      "APPLY",
    ],
    ["delete collection", { method: "DELETE", scope: "namespace" }, "DELETE"],
    ["log", { method: "GET", scope: "resource", subresource: "log" }, "CONNECT"],
    ["status", { method: "PUT", scope: "resource", subresource: "status" }, "PUT"],
    ["odd method", { method: "BREW", scope: "" }, "other"],
  ];
  for (const [name, obs, want] of cases) {
    await t.step(name, () => assert.equal(reportedVerb(obs), want));
  }
});

Deno.test("dryRunLabel() cleans the dryRun values", async (t) => {
  const cases: [string[] | undefined, string][] = [
    [undefined, ""],
    [[], ""],
    [["All"], "All"],
    [["All", "All"], "All"],
    [["Some"], "invalid"],
  ];
  for (const [values, want] of cases) {
    await t.step(String(JSON.stringify(values)), () => assert.equal(dryRunLabel(values), want));
  }
});

const LIST_PODS: RequestObservation = {
  method: "GET",
  scope: "namespace",
  group: "",
  version: "v1",
  resource: "pods",
  code: 200,
  durationSeconds: 0.003,
};

Deno.test("createApiServerMetrics() records requests as kube-apiserver does", async () => {
  const m = createApiServerMetrics(new MetricsRegistry());
  m.observeRequest(LIST_PODS);
  m.observeRequest({ ...LIST_PODS, code: 500, durationSeconds: 0.3 });
  m.observeRequest({
    ...LIST_PODS,
    method: "POST",
    scope: "resource",
    group: "batch",
    version: "v1beta1",
    resource: "cronjobs",
    code: 201,
    dryRun: ["All"],
    deprecated: true,
    removedRelease: "1.25",
  });
  const text = await m.registry.exposition();
  assert.ok(
    text.includes(
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1\n',
    ),
    text,
  );
  assert.ok(text.includes('code="500"'));
  assert.ok(text.includes(
    'apiserver_request_total{code="201",component="apiserver",dry_run="All",group="batch",resource="cronjobs",scope="resource",subresource="",verb="POST",version="v1beta1"} 1\n',
  ));
  assert.ok(text.includes(
    'apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1",le="0.005"} 1\n',
  ));
  assert.ok(text.includes(
    'apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 2\n',
  ));
  assert.ok(text.includes(
    'apiserver_requested_deprecated_apis{group="batch",removed_release="1.25",resource="cronjobs",subresource="",version="v1beta1"} 1\n',
  ));
  assert.ok(text.includes("# TYPE apiserver_request_duration_seconds histogram\n"));
  assert.ok(text.includes("# HELP apiserver_request_total [STABLE] Counter of apiserver requests"));
  const buckets = text.split("\n").filter((l) =>
    l.startsWith("apiserver_request_duration_seconds_bucket") && l.includes('verb="LIST"')
  );
  assert.equal(buckets.length, REQUEST_DURATION_BUCKETS.length + 1);
});

Deno.test("createApiServerMetrics() records authentication and storage size", async (t) => {
  await t.step("authentication attempts", async () => {
    const m = createApiServerMetrics(new MetricsRegistry());
    m.observeAuthentication("success", 0.001);
    m.observeAuthentication("failure", 0.002);
    m.observeAuthentication("success", 0.001);
    const text = await m.registry.exposition();
    assert.ok(text.includes('authentication_attempts{result="success"} 2\n'));
    assert.ok(text.includes('authentication_attempts{result="failure"} 1\n'));
  });
  await t.step("group commits", async () => {
    const m = createApiServerMetrics(new MetricsRegistry());
    m.observeGroupCommit({ where: "inline", writes: 7, seconds: 0.0008, slow: false });
    m.observeGroupCommit({ where: "inline", writes: 3, seconds: 0.3, slow: true });
    m.observeGroupCommit({ where: "worker", writes: 1, seconds: 0.001, slow: false });
    const text = await m.registry.exposition();
    assert.ok(
      text.includes('apiserver_storage_group_commit_duration_seconds_count{where="inline"} 2\n'),
    );
    assert.ok(text.includes('apiserver_storage_group_commit_writes_sum{where="inline"} 10\n'));
    assert.ok(
      text.includes('apiserver_storage_group_commit_writes_bucket{where="inline",le="8"} 2\n'),
    );
    assert.ok(text.includes('apiserver_storage_slow_group_commits_total{where="inline"} 1\n'));
    assert.ok(!text.includes('apiserver_storage_slow_group_commits_total{where="worker"}'));
  });
  await t.step("storage size hook", async () => {
    const m = createApiServerMetrics(new MetricsRegistry());
    assert.ok(!(await m.registry.exposition()).includes("apiserver_storage_size_bytes"));
    m.setStorageSizeGetter(() => Promise.resolve(4096));
    assert.ok((await m.registry.exposition()).includes(
      'apiserver_storage_size_bytes{storage_cluster_id="storage-0"} 4096\n',
    ));
    m.setStorageSizeGetter(undefined);
    assert.ok(!(await m.registry.exposition()).includes("apiserver_storage_size_bytes{"));
  });
});

Deno.test("metricsHandler() serves the exposition with the 0.0.4 content type", async (t) => {
  const m = createApiServerMetrics(new MetricsRegistry());
  m.observeRequest(LIST_PODS);
  const handler = metricsHandler(m.registry);
  await t.step("GET", async () => {
    const res = await handler(new Request("https://localhost/metrics"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), EXPOSITION_CONTENT_TYPE);
    assert.equal(EXPOSITION_CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
    assert.ok((await res.text()).includes("apiserver_request_total{"));
  });
  await t.step("HEAD", async () => {
    const res = await handler(new Request("https://localhost/metrics", { method: "HEAD" }));
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "");
  });
  await t.step("DELETE resets the labelled metrics, as kube's handler with reset", async () => {
    const res = await handler(new Request("https://localhost/metrics", { method: "DELETE" }));
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "metrics reset\n");
    const text = await (await handler(new Request("https://localhost/metrics"))).text();
    assert.ok(!text.includes("apiserver_request_total{"), text);
    assert.ok(text.includes("\ndisabled_metrics_total 0\n"), "unlabelled metrics stay");
  });
});
