/**
 * End-to-end: discovery (legacy and aggregated v2 with ETag/304), /version, the health
 * endpoints and /metrics.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/test_server.ts";
import { AGGREGATED_V2 } from "../../apiserver/http/discovery.ts";
import { call, createConfigMap, createNamespace } from "./foundation_helpers.ts";

interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

interface ResourceList {
  kind: string;
  groupVersion: string;
  resources: ApiResource[];
}

interface DiscoveryItem {
  metadata: { name: string };
  versions: {
    version: string;
    resources: { resource: string; scope: string; verbs: string[]; subresources?: unknown[] }[];
  }[];
}

Deno.test("discovery, version, health and metrics", async (t) => {
  const s = await startTestServer();
  try {
    await t.step("/api lists v1", async () => {
      const r = await call<{ kind: string; versions: string[] }>(s, "GET", "/api");
      assert.equal(r.status, 200);
      assert.equal(r.body.kind, "APIVersions");
      assert.deepEqual(r.body.versions, ["v1"]);
    });
    await t.step(
      "/api/v1 lists the core kinds with verbs, short names and categories",
      async () => {
        const r = await call<ResourceList>(s, "GET", "/api/v1");
        assert.equal(r.status, 200);
        assert.equal(r.body.kind, "APIResourceList");
        assert.equal(r.body.groupVersion, "v1");
        const by = new Map(r.body.resources.map((x) => [x.name, x]));
        for (const n of ["configmaps", "events", "namespaces", "nodes", "pods", "secrets"]) {
          assert.ok(by.has(n), n);
        }
        const pods = by.get("pods")!;
        assert.equal(pods.kind, "Pod");
        assert.equal(pods.singularName, "pod");
        assert.equal(pods.namespaced, true);
        assert.deepEqual(pods.shortNames, ["po"]);
        assert.deepEqual(pods.categories, ["all"]);
        for (const v of ["create", "delete", "deletecollection", "get", "list", "update"]) {
          assert.ok(pods.verbs.includes(v), v);
        }
        assert.equal(by.get("nodes")!.namespaced, false);
        assert.ok(by.has("pods/status"));
        assert.ok(by.has("namespaces/status"));
        assert.ok(!by.get("namespaces")!.verbs.includes("deletecollection"));
      },
    );
    await t.step("/apis, /apis/{group} and /apis/{group}/{version}", async () => {
      const groups = await call<{ kind: string; groups: { name: string }[] }>(s, "GET", "/apis");
      assert.equal(groups.body.kind, "APIGroupList");
      assert.ok(groups.body.groups.some((g) => g.name === "coordination.k8s.io"));
      const g = await call<{ kind: string; name: string; preferredVersion: { version: string } }>(
        s,
        "GET",
        "/apis/coordination.k8s.io",
      );
      assert.equal(g.body.kind, "APIGroup");
      assert.equal(g.body.preferredVersion.version, "v1");
      const v = await call<ResourceList>(s, "GET", "/apis/coordination.k8s.io/v1");
      assert.equal(v.body.groupVersion, "coordination.k8s.io/v1");
      assert.ok(v.body.resources.some((x) => x.name === "leases" && x.kind === "Lease"));
      assert.equal((await call(s, "GET", "/apis/nope.example.com")).status, 404);
      assert.equal((await call(s, "GET", "/apis/coordination.k8s.io/v9")).status, 404);
    });
    await t.step("aggregated discovery v2 with exact Content-Type, ETag and 304", async () => {
      for (const path of ["/api", "/apis"]) {
        const res = await s.fetch(path, { headers: { accept: AGGREGATED_V2 } });
        assert.equal(res.status, 200);
        assert.equal(
          res.headers.get("content-type"),
          "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        );
        const etag = res.headers.get("etag");
        assert.ok(etag);
        const body = await res.json() as {
          kind: string;
          apiVersion: string;
          items: DiscoveryItem[];
        };
        assert.equal(body.kind, "APIGroupDiscoveryList");
        assert.equal(body.apiVersion, "apidiscovery.k8s.io/v2");
        if (path === "/api") {
          const pods = body.items[0].versions[0].resources.find((r) => r.resource === "pods")!;
          assert.equal(pods.scope, "Namespaced");
          assert.ok(pods.subresources?.length);
        } else {
          assert.ok(body.items.some((i) => i.metadata.name === "coordination.k8s.io"));
        }
        const again = await s.fetch(path, {
          headers: { accept: AGGREGATED_V2, "if-none-match": etag },
        });
        assert.equal(again.status, 304);
        assert.equal(await again.text(), "");
        const changed = await s.fetch(path, {
          headers: { accept: AGGREGATED_V2, "if-none-match": '"other"' },
        });
        assert.equal(changed.status, 200);
        await changed.body?.cancel();
      }
      // kubectl's Accept lists v2 first, then v2beta1 and plain JSON.
      const kubectl = await s.fetch("/apis", {
        headers: {
          accept: `${AGGREGATED_V2},application/json;g=apidiscovery.k8s.io;v=v2beta1;` +
            "as=APIGroupDiscoveryList,application/json",
        },
      });
      assert.equal(kubectl.headers.get("content-type"), AGGREGATED_V2);
      await kubectl.body?.cancel();
      // Plain JSON still gets the legacy format.
      const legacy = await s.fetch("/apis", { headers: { accept: "application/json" } });
      assert.equal((await legacy.json()).kind, "APIGroupList");
    });
    await t.step("/version and /version/", async () => {
      for (const path of ["/version", "/version/"]) {
        const r = await call<{ major: string; minor: string; gitVersion: string }>(s, "GET", path);
        assert.equal(r.status, 200);
        assert.match(r.body.gitVersion, /^v1\.32\.\d+/);
        assert.equal(r.body.major, "1");
        assert.equal(r.body.minor, "32");
      }
    });
    await t.step("health endpoints: plain, verbose, exclude, per check", async () => {
      for (const path of ["/healthz", "/livez", "/readyz"]) {
        const plain = await s.fetch(path);
        assert.equal(plain.status, 200);
        assert.equal(await plain.text(), "ok");
        const verbose = await s.fetch(`${path}?verbose`);
        const text = await verbose.text();
        assert.equal(verbose.status, 200);
        for (
          const check of [
            "ping",
            "log",
            "etcd",
            "poststarthook/rbac/bootstrap-roles",
            "poststarthook/start-system-namespaces-controller",
            "poststarthook/bootstrap-controller",
          ]
        ) {
          assert.match(text, new RegExp(`^\\[\\+\\]${check} ok$`, "m"), text);
        }
        assert.match(text, new RegExp(`${path.slice(1)} check passed\n$`));
        const excluded = await s.fetch(`${path}?verbose&exclude=etcd`);
        assert.match(await excluded.text(), /^\[\+\]etcd excluded: ok$/m);
      }
      for (
        const path of [
          "/livez/ping",
          "/readyz/etcd",
          "/readyz/poststarthook/rbac/bootstrap-roles",
        ]
      ) {
        const r = await s.fetch(path);
        assert.equal(r.status, 200, path);
        assert.equal(await r.text(), "ok");
      }
      const missing = await s.fetch("/readyz/nonexistent");
      assert.equal(missing.status, 404);
      await missing.body?.cancel();
    });
    await t.step("/metrics counts requests with labels and a duration histogram", async () => {
      await createNamespace(s, "metrics");
      await createConfigMap(s, "metrics", "m");
      await call(s, "GET", "/api/v1/namespaces/metrics/configmaps/m");
      await call(s, "GET", "/api/v1/namespaces/metrics/configmaps/missing");
      const res = await s.fetch("/metrics");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      assert.match(text, /^# TYPE apiserver_request_total counter$/m);
      const line = (labels: string) =>
        new RegExp(`^apiserver_request_total\\{[^}]*${labels}[^}]*\\} [1-9]`, "m");
      assert.match(text, line('code="201",[^}]*resource="configmaps"'));
      assert.match(text, line('code="404",[^}]*resource="configmaps"'));
      const total = text.split("\n").find((l) =>
        l.startsWith("apiserver_request_total{") && l.includes('verb="GET"') &&
        l.includes('resource="configmaps"') && l.includes('code="200"')
      );
      assert.ok(total, "a GET configmaps 200 sample");
      for (const label of ["verb", "group", "version", "resource", "subresource", "code"]) {
        assert.match(total, new RegExp(`${label}="`), label);
      }
      assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
      assert.match(text, /^apiserver_request_duration_seconds_bucket\{[^}]*le="\+Inf"[^}]*\} \d+/m);
      assert.match(text, /^apiserver_request_duration_seconds_count\{/m);
      assert.match(text, /^apiserver_request_duration_seconds_sum\{/m);
      // The creates went through the storage's group commits, on this thread.
      assert.match(
        text,
        /^apiserver_storage_group_commit_duration_seconds_count\{where="inline"\} [1-9]/m,
      );
      assert.match(text, /^apiserver_storage_group_commit_writes_sum\{where="inline"\} [1-9]/m);
    });
  } finally {
    await s.close();
  }
});
