import assert from "node:assert/strict";
import { AGGREGATED_V2, Discovery } from "../../../apiserver/http/discovery.ts";
import { ALL_VERBS, type KindDef } from "../../../apiserver/registry/generic/kind.ts";
import type { ResourceRegistry } from "../../../apiserver/registry/resource_registry.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";

const KUBECTL_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

interface Env {
  registry: ResourceRegistry;
  served: Set<string>;
  discovery: Discovery;
  get(path: string, headers?: Record<string, string>, method?: string): Promise<Response>;
  getJson(path: string, headers?: Record<string, string>): Promise<Record<string, unknown>>;
}

async function withDiscovery(fn: (env: Env) => Promise<void>): Promise<void> {
  await withRegistryHarness("discovery_test_", async ({ registry }) => {
    const served = new Set<string>(ALL_VERBS);
    const discovery = new Discovery(registry, () => served);
    const get = async (path: string, headers: Record<string, string> = {}, method = "GET") => {
      const url = new URL(`https://127.0.0.1:6443${path}`);
      const res = await discovery.handle(new Request(url, { method, headers }), url);
      assert.ok(res, `${path} is a discovery path`);
      return res;
    };
    const getJson = async (path: string, headers: Record<string, string> = {}) => {
      const res = await get(path, headers);
      assert.equal(res.status, 200);
      return await res.json();
    };
    await fn({ registry, served, discovery, get, getJson });
  });
}

type Resource = Record<string, unknown> & { name: string; verbs: string[] };

function resource(list: Record<string, unknown>, name: string): Resource {
  const r = (list.resources as Resource[]).find((x) => x.name === name);
  assert.ok(r, `${name} is listed`);
  return r;
}

Deno.test("Discovery.handle() serves the legacy documents", async (t) => {
  await withDiscovery(async ({ getJson, get }) => {
    await t.step("/api lists v1 and the server address", async () => {
      const res = await get("/api", { host: "example:6443" });
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.deepEqual(await res.json(), {
        kind: "APIVersions",
        versions: ["v1"],
        serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "example:6443" }],
      });
    });
    await t.step("/apis lists every named group with its preferred version", async () => {
      const doc = await getJson("/apis");
      assert.equal(doc.kind, "APIGroupList");
      const groups = doc.groups as { name: string; preferredVersion: { groupVersion: string } }[];
      const byName = Object.fromEntries(groups.map((g) => [g.name, g]));
      assert.deepEqual(Object.keys(byName).sort(), [
        "admissionregistration.k8s.io",
        "apiextensions.k8s.io",
        "apiregistration.k8s.io",
        "apps",
        "authentication.k8s.io",
        "autoscaling",
        "batch",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "policy",
        "rbac.authorization.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
      ]);
      assert.deepEqual(byName["autoscaling"].preferredVersion.groupVersion, "autoscaling/v2");
      assert.deepEqual(byName["rbac.authorization.k8s.io"], {
        name: "rbac.authorization.k8s.io",
        versions: [{ groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }],
        preferredVersion: { groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" },
      });
    });
    await t.step("/apis/{group} is one APIGroup", async () => {
      const doc = await getJson("/apis/coordination.k8s.io");
      assert.equal(doc.kind, "APIGroup");
      assert.equal(doc.apiVersion, "v1");
      assert.equal(doc.name, "coordination.k8s.io");
    });
    await t.step("/api/v1 lists core resources and subresources", async () => {
      const doc = await getJson("/api/v1");
      assert.equal(doc.kind, "APIResourceList");
      assert.equal(doc.groupVersion, "v1");
      assert.deepEqual(resource(doc, "pods"), {
        name: "pods",
        singularName: "pod",
        namespaced: true,
        kind: "Pod",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        shortNames: ["po"],
        categories: ["all"],
        // As kube-apiserver: base64 of the first 8 bytes of sha256("/v1/Pod").
        storageVersionHash: "xPOwRZ+Yhw8=",
      });
      assert.deepEqual(resource(doc, "pods/status"), {
        name: "pods/status",
        singularName: "",
        namespaced: true,
        kind: "Pod",
        verbs: ["get", "patch", "update"],
      });
      const ns = resource(doc, "namespaces");
      assert.equal(ns.namespaced, false);
      assert.ok(!ns.verbs.includes("deletecollection"));
      assert.deepEqual(resource(doc, "namespaces/finalize").verbs, ["update"]);
      const names = (doc.resources as Resource[]).map((r) => r.name);
      assert.deepEqual(
        names.filter((n) => !n.includes("/")),
        [...names.filter((n) => !n.includes("/"))].sort(),
      );
    });
    await t.step("/apis/{group}/{version} lists the group's resources", async () => {
      const doc = await getJson("/apis/coordination.k8s.io/v1");
      assert.equal(doc.groupVersion, "coordination.k8s.io/v1");
      assert.equal(resource(doc, "leases").kind, "Lease");
    });
    await t.step("a trailing slash is the same path", async () => {
      assert.equal((await getJson("/api/v1/")).kind, "APIResourceList");
    });
  });
});

Deno.test("Discovery.handle() answers 404 for unserved groups and versions", async (t) => {
  await withDiscovery(async ({ discovery }) => {
    for (const path of ["/api/v2", "/apis/example.com", "/apis/coordination.k8s.io/v9"]) {
      await t.step(path, async () => {
        const url = new URL(`https://127.0.0.1${path}`);
        await assert.rejects(discovery.handle(new Request(url), url), (e: unknown) => {
          assert.ok(e instanceof StatusError);
          assert.equal(e.code, 404);
          return true;
        });
      });
    }
  });
});

Deno.test("Discovery.handle() leaves other paths and methods to the next handler", async (t) => {
  await withDiscovery(async ({ discovery }) => {
    const cases: [string, string, string][] = [
      ["a resource path", "GET", "/api/v1/namespaces"],
      ["a named resource", "GET", "/apis/coordination.k8s.io/v1/leases"],
      ["not discovery", "GET", "/healthz"],
      ["POST", "POST", "/api"],
    ];
    for (const [name, method, path] of cases) {
      await t.step(name, async () => {
        const url = new URL(`https://127.0.0.1${path}`);
        assert.equal(await discovery.handle(new Request(url, { method }), url), undefined);
      });
    }
  });
});

Deno.test("Discovery.handle() serves aggregated discovery v2 when asked", async (t) => {
  await withDiscovery(async ({ get, registry }) => {
    await t.step("/apis with kubectl's Accept", async () => {
      const res = await get("/apis", { accept: KUBECTL_ACCEPT });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), AGGREGATED_V2);
      assert.equal(res.headers.get("vary"), "Accept");
      const doc = await res.json();
      assert.equal(doc.kind, "APIGroupDiscoveryList");
      assert.equal(doc.apiVersion, "apidiscovery.k8s.io/v2");
      const coord = doc.items.find((i: { metadata: { name: string } }) =>
        i.metadata.name === "coordination.k8s.io"
      );
      assert.deepEqual(coord.versions, [{
        version: "v1",
        resources: [{
          resource: "leases",
          responseKind: { group: "", version: "", kind: "Lease" },
          scope: "Namespaced",
          singularResource: "lease",
          verbs: [
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
          ],
        }],
        freshness: "Current",
      }]);
    });
    await t.step("/api holds the core group with subresources", async () => {
      const doc = await (await get("/api", { accept: KUBECTL_ACCEPT })).json();
      assert.equal(doc.items.length, 1);
      assert.equal(doc.items[0].metadata.name, "");
      const pods = doc.items[0].versions[0].resources.find((r: { resource: string }) =>
        r.resource === "pods"
      );
      assert.deepEqual(pods.subresources[0], {
        subresource: "status",
        responseKind: { group: "", version: "", kind: "Pod" },
        verbs: ["get", "patch", "update"],
      });
      const byName = Object.fromEntries(
        pods.subresources.map((s: { subresource: string }) => [s.subresource, s]),
      );
      assert.deepEqual(byName.exec, {
        subresource: "exec",
        responseKind: { group: "", version: "", kind: "PodExecOptions" },
        verbs: ["create", "get"],
      });
      assert.deepEqual(byName.ephemeralcontainers.verbs, ["get", "patch", "update"]);
      assert.equal(pods.scope, "Namespaced");
      assert.deepEqual(pods.categories, ["all"]);
    });
    await t.step("v2beta1 only, then JSON, gets the legacy document", async () => {
      const res = await get("/apis", {
        accept: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList," +
          "application/json",
      });
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal((await res.json()).kind, "APIGroupList");
    });
    await t.step("ETag and If-None-Match give 304", async () => {
      const first = await get("/apis", { accept: KUBECTL_ACCEPT });
      await first.body?.cancel();
      const etag = first.headers.get("etag");
      assert.match(etag!, /^"[0-9a-f]{32}"$/);
      const again = await get("/apis", { accept: KUBECTL_ACCEPT, "if-none-match": etag! });
      assert.equal(again.status, 304);
      assert.equal(again.body, null);
      assert.equal(again.headers.get("etag"), etag);
      const listed = await get("/apis", {
        accept: KUBECTL_ACCEPT,
        "if-none-match": `"other", ${etag}`,
      });
      assert.equal(listed.status, 304);
      const stale = await get("/apis", { accept: KUBECTL_ACCEPT, "if-none-match": '"other"' });
      assert.equal(stale.status, 200);
      await stale.body?.cancel();
    });
    await t.step("the ETag changes when a kind is added", async () => {
      const before = await get("/apis", { accept: KUBECTL_ACCEPT });
      await before.body?.cancel();
      const widget: KindDef = {
        group: "example.com",
        version: "v1",
        kind: "Widget",
        plural: "widgets",
        singular: "widget",
        namespaced: false,
        strategy: { validate: () => [] },
      };
      registry.add(widget);
      const after = await get("/apis", { accept: KUBECTL_ACCEPT });
      assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
      const doc = await after.json();
      const w = doc.items.find((i: { metadata: { name: string } }) =>
        i.metadata.name === "example.com"
      );
      assert.equal(w.versions[0].resources[0].scope, "Cluster");
    });
    await t.step("HEAD has headers and no body", async () => {
      const res = await get("/apis", { accept: KUBECTL_ACCEPT }, "HEAD");
      assert.equal(res.status, 200);
      assert.ok(res.headers.get("etag"));
      assert.equal(res.body, null);
    });
  });
});

Deno.test("Discovery.handle() advertises only verbs that have handlers", async (t) => {
  await withDiscovery(async ({ served, getJson, get }) => {
    served.delete("watch");
    served.delete("deletecollection");
    served.delete("patch");
    await t.step("legacy resource list", async () => {
      const doc = await getJson("/api/v1");
      assert.deepEqual(resource(doc, "configmaps").verbs, [
        "create",
        "delete",
        "get",
        "list",
        "update",
      ]);
      assert.deepEqual(resource(doc, "pods/status").verbs, ["get", "update"]);
    });
    await t.step("aggregated document", async () => {
      const doc = await (await get("/api", { accept: KUBECTL_ACCEPT })).json();
      const cms = doc.items[0].versions[0].resources.find((r: { resource: string }) =>
        r.resource === "configmaps"
      );
      assert.deepEqual(cms.verbs, ["create", "delete", "get", "list", "update"]);
    });
    await t.step("a kind's own verb list is kept", async () => {
      const doc = await getJson("/apis/authentication.k8s.io/v1");
      assert.deepEqual(resource(doc, "selfsubjectreviews").verbs, ["create"]);
    });
  });
});
